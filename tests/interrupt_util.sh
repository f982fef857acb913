# Sourced by the Ctrl-C tests (periodic_interrupt.sh, sweep_interrupt.sh).
# interrupt_when PID READY: once the shell test READY holds (up to 30 s)
# and 0.5 s more (inside the looping callback by then), send PID one
# SIGINT and give it 10 s to end (then SIGKILL). Sets st (its exit status)
# and dt (seconds from the signal to its end, or "ignored").
interrupt_when() {
    local pid=$1 ready=$2 t0
    for _ in $(seq 300); do eval "$ready" && break; kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
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
