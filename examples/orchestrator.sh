#!/usr/bin/env bash
# A minimal orchestrator loop: run an agent until it succeeds, charging an
# attempt only when the *work* failed. Environment faults (faultsift's pause and
# retry) cost nothing: retry waits and runs again, pause stops the loop for a
# person (exit 75, EX_TEMPFAIL) without spending the budget.
#
#   BUDGET=3 examples/orchestrator.sh -- my-agent --task 42
#
# Environment: BUDGET (charged attempts, default 3), MAX_RUNS (all runs, default
# 10), PROFILE (faultsift profile, default claude), BACKOFF (seconds to wait
# on retry when the log gives no time, default 30), LOG_DIR (default: a temp dir).
set -uo pipefail

[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 -- AGENT [ARGS...]" >&2; exit 2; }

budget=${BUDGET:-3}
max_runs=${MAX_RUNS:-10}
profile=${PROFILE:-claude}
backoff=${BACKOFF:-30}
log_dir=${LOG_DIR:-$(mktemp -d)}
charged=0
run=0

while [ "$charged" -lt "$budget" ] && [ "$run" -lt "$max_runs" ]; do
  run=$((run + 1))
  log="$log_dir/run-$run.log"
  if "$@" >"$log" 2>&1; then
    echo "run $run: succeeded"
    exit 0
  fi
  verdict=$(faultsift classify --profile "$profile" --status failed "$log") || {
    echo "run $run: faultsift could not classify $log; charging" >&2
    charged=$((charged + 1))
    continue
  }
  action=$(printf '%s\n' "$verdict" | sed -n 's/.*"action":"\([a-z]*\)".*/\1/p')
  reason=$(printf '%s\n' "$verdict" | sed -n 's/.*"reason":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
  case "$action" in
    pause)
      echo "run $run: paused, not charged: $reason"
      exit 75
      ;;
    retry)
      wait_s=$(printf '%s\n' "$verdict" | sed -n 's/.*"retry_after_s":\([0-9]*\).*/\1/p')
      wait_s=${wait_s:-$backoff}
      echo "run $run: transient fault, not charged; retrying in ${wait_s}s: $reason"
      sleep "$wait_s"
      ;;
    *)
      charged=$((charged + 1))
      echo "run $run: charged ($charged/$budget): $reason"
      ;;
  esac
done
echo "budget spent after $run runs"
exit 1
