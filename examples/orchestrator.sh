#!/usr/bin/env bash
# A minimal orchestrator loop: run an agent until it succeeds, charging an
# attempt only when the *work* failed. Environment faults (faultsift's pause and
# retry) cost nothing: retry waits and runs again, pause stops the loop for a
# person (exit 75, EX_TEMPFAIL) without spending the budget.
#
#   BUDGET=3 examples/orchestrator.sh -- my-agent --task 42
#
# Environment: BUDGET (charged attempts, default 3), MAX_RUNS (all runs, default
# 10), PROFILE (faultsift profile, default builtin:claude — pinned to the
# built-in, so nothing the agent writes can change its own verdict), BACKOFF
# (seconds to wait on retry when the log gives no time, default 30), MAX_WAIT
# (the longest wait on retry, whatever the log asks, default 3600), LOG_DIR
# (default: a new temporary directory, outside the agent's working tree),
# FAULTSIFT (the faultsift binary, default `faultsift`). Needs jq.
#
# Exit status: 0 the agent succeeded; 1 the budget (or MAX_RUNS) was spent;
# 2 usage; 75 paused on an environment fault that needs a person.
set -uo pipefail

[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 -- AGENT [ARGS...]" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }

budget=${BUDGET:-3}
max_runs=${MAX_RUNS:-10}
profile=${PROFILE:-builtin:claude}
backoff=${BACKOFF:-30}
max_wait=${MAX_WAIT:-3600}
faultsift=${FAULTSIFT:-faultsift}
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
  # One JSON verdict; its top-level fields are read with jq, never by
  # pattern-matching the line (the `hits` inside it carry actions too).
  verdict=$("$faultsift" classify --profile "$profile" --status failed "$log") || {
    echo "run $run: faultsift could not classify $log; charging" >&2
    charged=$((charged + 1))
    continue
  }
  action=$(jq -r '.action' <<<"$verdict")
  reason=$(jq -r '.reason' <<<"$verdict")
  case "$action" in
    pause)
      echo "run $run: paused, not charged: $reason"
      exit 75
      ;;
    retry)
      wait_s=$(jq -r --argjson backoff "$backoff" '.captures.retry_after_s // $backoff' <<<"$verdict")
      # A log can ask for any wait (999999999999999 s has been seen): cap it.
      if ! [[ "$wait_s" =~ ^[0-9]+$ ]] || [ "${#wait_s}" -gt 9 ] || [ "$wait_s" -gt "$max_wait" ]; then
        wait_s=$max_wait
      fi
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
