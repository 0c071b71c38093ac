#!/usr/bin/env bash
# Whole-process comparison: builds the shipped binary (`cargo dist`) and the
# plain release build, then benches/compare.py makes its inputs and times
# faultsift, the do-nothing floor, the shell pipeline and the Python peer side
# by side, printing medians and ratios.
#
#   benches/compare.sh            # full run (a few minutes)
#   benches/compare.sh --quick    # smaller inputs, fewer runs
#   benches/compare.sh --interleave   # rounds of every command, not hyperfine's blocks
#
# Uses hyperfine when installed (apt-get install hyperfine), else its own loop;
# the Python peer needs `pip install regex`.
set -euo pipefail
cd "$(dirname "$0")/.."
# The path of the binary a cargo build command made.
built() {
  "$@" --message-format=json-render-diagnostics |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("executable"): print(m["executable"])'
}
dist=$(built cargo dist)
plain=$(built cargo build --release --locked --bin faultsift)
exec python3 benches/compare.py "$dist" --plain "$plain" "$@"
