# Sourced by the Ctrl-C tests (periodic_interrupt.sh, sweep_interrupt.sh,
# sweep_checks.sh, run_bounds.sh).
# wait_handler PID: wait (up to 30 s) until PID catches SIGINT. A script's
# background job starts with SIGINT ignored, so a signal sent before nsdyn
# installs its handler is lost (seen under ASan on a loaded machine).
wait_handler() {
    local pid=$1 cgt
    for _ in $(seq 300); do
        cgt=$(awk '/^SigCgt/ {print $2}' "/proc/$pid/status" 2> /dev/null)
        [[ -z $cgt ]] && return 1 # ended
        ((0x$cgt & 2)) && return 0 # bit 1: signal 2
        sleep 0.1
    done
}
# interrupt_when PID READY: once the shell test READY holds (up to 30 s)
# and 0.5 s more (inside the looping callback by then), send PID one
# SIGINT and give it 10 s to end (then SIGKILL). Sets st (its exit status)
# and dt (seconds from the signal to its end, or "ignored").
interrupt_when() {
    local pid=$1 ready=$2 t0
    for _ in $(seq 300); do eval "$ready" && break; kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    wait_handler "$pid"
    sleep 0.5
    kill -INT "$pid" 2> /dev/null
    t0=$(date +%s.%N)
    for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    dt=$(python3 -c "import time; print(round(time.time() - $t0, 2))")
    if kill -0 "$pid" 2> /dev/null; then
        dt=ignored
        kill -KILL "$pid"
    fi
    wait "$pid"
    st=$?
}
