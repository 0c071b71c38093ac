#!/usr/bin/env bash
# Whole-process comparison: builds the release binary, then benches/compare.py
# makes its inputs and times faultsift, the do-nothing floor, the shell
# pipeline and the Python peer side by side, printing medians and ratios.
#
#   benches/compare.sh            # full run (a few minutes)
#   benches/compare.sh --quick    # smaller inputs, fewer runs
#   benches/compare.sh --interleave   # rounds of every command, not hyperfine's blocks
#
# Uses hyperfine when installed (apt-get install hyperfine), else its own loop;
# the Python peer needs `pip install regex`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Where the binary lands depends on .cargo/config.toml's build target; ask cargo.
bin=$(cargo build --release --locked --bin faultsift --message-format=json-render-diagnostics |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("executable"): print(m["executable"])')
exec python3 benches/compare.py "$bin" "$@"
