#!/bin/sh
# Regenerate every fixture in testdata/clients the way the committed ones were made.
# Needs root, tmux, npm and PyPI (for --install), python3.12 (the OpenHands CLI) and
# about three hours on 2 cores.
set -eu
cd "$(dirname "$0")/.."
python3 harness/drive.py --install
SIX="--cli claude --cli codex --cli gemini --cli qwen --cli opencode --cli copilot"
python3 harness/drive.py --run $SIX                              # 6 CLIs x 8 scenarios, cap 90 s
python3 harness/drive.py --run $SIX --scenario quota
# `codex exec`'s human output, added later: the scenarios its `exec --json` runs have
CODEX=""
for s in healthy overloaded rate-limit auth server-error unavailable refused hang quota reset \
         midstream bad-gateway dns forbidden gateway-timeout tls too-long not-found flaky unreachable tool write; do
    CODEX="$CODEX --scenario $s"
done
python3 harness/drive.py --run --cli codex --mode headless --variant exec $CODEX
# aider and the OpenHands CLI (from PyPI) were run through all twenty scenarios;
# the OpenHands SDK retries five times 8 to 64 s apart, so it gets 180 s.
ALL=""
for s in healthy overloaded rate-limit auth server-error unavailable refused hang quota reset \
         midstream bad-gateway dns forbidden gateway-timeout tls too-long not-found payment flaky; do
    ALL="$ALL --scenario $s"
done
python3 harness/drive.py --run --cli aider $ALL
python3 harness/drive.py --run --cli openhands --cap 180 $ALL
# goose (its native binary from npm) was run through eighteen scenarios.
GOOSE=""
for s in healthy overloaded rate-limit auth server-error unavailable refused hang quota flaky tool \
         write forbidden bad-gateway midstream too-long not-found payment; do
    GOOSE="$GOOSE --scenario $s"
done
python3 harness/drive.py --run --cli goose $GOOSE
# Gemini CLI and Qwen Code retry 5xx/429 silently for minutes: watch their screens longer.
python3 harness/drive.py --run --cli gemini --mode tui --cap 300 \
    --scenario overloaded --scenario rate-limit --scenario server-error --scenario unavailable
python3 harness/drive.py --run --cli qwen --mode tui --cap 240 \
    --scenario overloaded --scenario unavailable --scenario refused
python3 harness/drive.py --manifest
python3 harness/drive.py --table
