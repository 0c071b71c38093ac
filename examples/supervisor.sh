#!/bin/sh
# A supervisor loop around `faultsift stall`: every SUPERVISOR_INTERVAL
# seconds it captures the agent's pane and ticks; when the session is stalled
# (screen unchanged for the threshold, nothing busy on it, no tool running) it
# reads the classification of the same capture and either pauses (an
# environment fault: do not charge the attempt, wait for the provider) or
# restarts the agent (the work itself is stuck).
#
#   SUPERVISOR_START='tmux new-session -d -s agent claude' \
#   SUPERVISOR_STOP='tmux kill-session -t agent' sh examples/supervisor.sh
#
# Configuration, all optional, from the environment:
#   FAULTSIFT               the faultsift binary (faultsift)
#   SUPERVISOR_PROFILE      profile for the agent's screen (builtin:claude: pinned, so that a profile the agent writes cannot decide its own verdict)
#   SUPERVISOR_INTERVAL     seconds between ticks (30)
#   SUPERVISOR_THRESHOLD    how long a quiet, unchanged screen takes to stall (300s)
#   SUPERVISOR_STATE        the session's state file (./agent.stall)
#   SUPERVISOR_CAPTURE      prints the pane (tmux capture-pane -p -J -t agent)
#   SUPERVISOR_START        starts the agent, in the background (none: report only)
#   SUPERVISOR_STOP         stops the agent (none: the started process is killed);
#                           needed when SUPERVISOR_START detaches, as tmux -d does
#   SUPERVISOR_BUSY         exits 0 while a tool process runs (none)
#   SUPERVISOR_IDLE         exits 0 when the agent has no outstanding work (none)
#   SUPERVISOR_CLOCK_STEP   seconds a tick advances a fake clock (`--now`), for CI
#   SUPERVISOR_MAX_TICKS    stop after this many ticks (never)
#   SUPERVISOR_MAX_RESTARTS stop after this many restarts (never)
set -u

faultsift=${FAULTSIFT:-faultsift}
profile=${SUPERVISOR_PROFILE:-builtin:claude}
interval=${SUPERVISOR_INTERVAL:-30}
threshold=${SUPERVISOR_THRESHOLD:-300s}
state=${SUPERVISOR_STATE:-./agent.stall}
capture=${SUPERVISOR_CAPTURE:-tmux capture-pane -p -J -t agent}
start=${SUPERVISOR_START:-}
stop=${SUPERVISOR_STOP:-}
max_ticks=${SUPERVISOR_MAX_TICKS:-0}
max_restarts=${SUPERVISOR_MAX_RESTARTS:-0}

agent=
start_agent() {
    [ -n "$start" ] || return 0
    # Word-split on purpose: the command and its arguments.
    $start &
    agent=$!
}
stop_agent() {
    [ -n "$agent" ] || return 0
    # A start that detaches (tmux new-session -d) has exited by now and left
    # the agent elsewhere: only the stop command reaches it.
    if [ -n "$stop" ]; then
        sh -c "$stop"
    fi
    kill "$agent" 2>/dev/null
    wait "$agent" 2>/dev/null
    agent=
}
trap stop_agent EXIT
trap 'exit 130' INT TERM

start_agent
ticks=0
restarts=0
while :; do
    ticks=$((ticks + 1))
    set -- --profile "$profile" --state "$state" --threshold "$threshold" --classify --format text
    if [ -n "${SUPERVISOR_CLOCK_STEP:-}" ]; then
        set -- "$@" --now $((1000000000 + ticks * SUPERVISOR_CLOCK_STEP))
    fi
    if [ -n "${SUPERVISOR_IDLE:-}" ] && sh -c "$SUPERVISOR_IDLE"; then
        set -- "$@" --idle
    elif [ -n "${SUPERVISOR_BUSY:-}" ] && sh -c "$SUPERVISOR_BUSY"; then
        set -- "$@" --busy
    fi
    # One call answers both questions: stalled? and whose fault?
    if report=$(sh -c "$capture" | "$faultsift" stall "$@"); then
        echo "tick $ticks: $report"
        case $report in
        stalled:*)
            action=$(printf '%s\n' "$report" | sed -n 's/^  verdict: \([a-z]*\): .*/\1/p')
            case $action in
            pause | retry)
                echo "supervisor: environment fault ($action): pausing, the attempt is not charged"
                stop_agent
                exit 0
                ;;
            *)
                echo "supervisor: the session is stuck ($action): restarting the agent"
                stop_agent
                rm -f "$state"
                restarts=$((restarts + 1))
                if [ "$max_restarts" -gt 0 ] && [ "$restarts" -ge "$max_restarts" ]; then
                    exit 0
                fi
                start_agent
                ;;
            esac
            ;;
        esac
    else
        echo "supervisor: tick $ticks failed; trying again at the next tick" >&2
    fi
    if [ "$max_ticks" -gt 0 ] && [ "$ticks" -ge "$max_ticks" ]; then
        echo "supervisor: no stall in $ticks ticks"
        exit 1
    fi
    sleep "$interval"
done
