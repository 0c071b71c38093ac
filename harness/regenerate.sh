#!/bin/sh
# Regenerate every fixture in testdata/clients the way the committed ones were made.
# Needs root, tmux, npm (for --install) and about 75 minutes on 2 cores.
set -eu
cd "$(dirname "$0")/.."
python3 harness/drive.py --install
python3 harness/drive.py --run                                   # 6 CLIs x 8 scenarios, cap 90 s
python3 harness/drive.py --run --scenario quota
# Gemini CLI and Qwen Code retry 5xx/429 silently for minutes: watch their screens longer.
python3 harness/drive.py --run --cli gemini --mode tui --cap 300 \
    --scenario overloaded --scenario rate-limit --scenario server-error --scenario unavailable
python3 harness/drive.py --run --cli qwen --mode tui --cap 240 \
    --scenario overloaded --scenario unavailable --scenario refused
python3 harness/drive.py --manifest
python3 harness/drive.py --table
