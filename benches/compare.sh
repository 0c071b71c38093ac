#!/usr/bin/env bash
# Whole-process comparison: builds the release binary, then benches/compare.py
# makes its inputs and times faultsift, the do-nothing floor, the shell
# pipeline and the Python peer side by side, printing medians and ratios.
#
#   benches/compare.sh            # full run (a few minutes)
#   benches/compare.sh --quick    # smaller inputs, fewer runs
#
# Uses hyperfine when installed (apt-get install hyperfine), else its own loop;
# the Python peer needs `pip install regex`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
exec python3 benches/compare.py target/release/faultsift "$@"
