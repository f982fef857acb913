"""A run a step at a time from Python (issue 24, host.h 1.1, docs/python.md):
Data.start / step / run_until / next_event, the state read in between.
The same run as Data.run bit for bit over random parts; next_event returns
the events the command line writes to events.csv; bad input raises the
engine's message."""
import csv
import os
import pathlib
import signal
import subprocess
import threading

import numpy as np
import pytest

import nsdyn

SRC = pathlib.Path(os.environ.get("NSDYN_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
CLI = os.environ.get("NSDYN_CLI", str(SRC / "build" / "core" / "nsdyn"))
CFG = SRC / "configs"
SEED = int(os.environ.get("NSDYN_TEST_SEED", np.random.SeedSequence().entropy % 2**32))

CASES = [
    ("bouncing_ball_newton.toml", 2.0),
    ("rimless_wheel_walk.toml", 3.0),
    ("towed_wheel_unstable.toml", 2.0),
]


def same_run(a, b):
    assert a.samples.shape == b.samples.shape
    assert a.samples.tobytes() == b.samples.tobytes()
    assert a.events.tobytes() == b.events.tobytes()
    sa, sb = dict(a.summary), dict(b.summary)
    sa.pop("wall_seconds"), sb.pop("wall_seconds")
    assert sa == sb


@pytest.mark.parametrize("config,t_end", CASES)
def test_parts_equal_whole(config, t_end):
    rng = np.random.default_rng(SEED)
    m = nsdyn.load(CFG / config, **{"run.t_end": t_end})
    whole = m.run()
    d = m.data()
    for _ in range(2):
        d.start()
        assert d.running and d.result().summary["outcome"] == "going"
        while d.running:
            u = rng.random()
            t0 = d.time
            if u < 0.3:
                for _ in range(int(rng.integers(1, 20))):
                    if not d.step() or not d.running:
                        break
            elif u < 0.7:
                t = min(t_end, t0 + rng.random() * 0.2 * t_end)
                reached = d.run_until(t)
                assert reached or not d.running, f"seed {SEED}"
            else:
                e = d.next_event()
                assert e is None or e["t"] <= d.time
            assert d.time >= t0
            so_far = d.result()
            n = len(so_far.samples)
            assert so_far.samples.tobytes() == whole.samples[:n].tobytes(), f"seed {SEED}"
            assert all(np.isfinite(list(d.state().values())))
        same_run(whole, d.result())
        end = d.time
        while (e := d.next_event()) is not None:  # only events at the last step's end remain
            assert e["t"] == end
        assert d.step() is False


@pytest.mark.parametrize("config", ["bouncing_ball_newton.toml", "rimless_wheel_walk.toml"])
def test_next_event_is_events_csv(tmp_path, config):
    out = tmp_path / "cli"
    proc = subprocess.run([CLI, "run", CFG / config, "--set", "run.t_end=3", "--set",
                           "plot.enabled=false", "-q", "-o", out], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open(out / "events.csv") as f:
        rows = list(csv.reader(f))[1:]
    d = nsdyn.load(CFG / config, **{"run.t_end": 3}).data()
    got = []
    while (e := d.next_event()) is not None:
        if e["contact"]:  # events.csv holds the contact events; switches are not in it
            got.append(e)
    assert len(got) == len(rows) > 3
    for e, r in zip(got, rows):
        assert (e["t"], e["contact"], e["kind"]) == (float(r[0]), r[1], r[2])
        assert e["u_before"] + e["u_after"] + e["impulse"] == tuple(map(float, r[3:12]))


def test_bad_input():
    d = nsdyn.load(CFG / "bouncing_ball_newton.toml", **{"run.t_end": 1.0}).data()
    with pytest.raises(ValueError, match=r"t = 2 s is past the run's end, run.t_end = 1 s"):
        d.run_until(2.0)
    with pytest.raises(TypeError, match="expected a real number, found str"):
        d.run_until("0.5")
    assert not d.running
    assert d.run_until(0.3) and d.running and d.time >= 0.3
    with pytest.raises(nsdyn.NsdynError, match="still going"):
        d.write("/tmp/nsdyn-never-written")
    d.set_param("contact.e", 0.7)  # ends the run in progress
    assert not d.running
    # a run that fails by steps: RunFailed with the data so far, as run()
    m = nsdyn.load(CFG / "bouncing_ball_newton.toml", **{"run.max_events": 5})
    with pytest.raises(nsdyn.RunFailed) as whole:
        m.run()
    d = m.data()
    with pytest.raises(nsdyn.RunFailed) as parts:
        while d.run_until(d.time + 0.05):
            pass
    assert str(parts.value) == str(whole.value)
    same_run(whole.value.result, parts.value.result)
    assert parts.value.result.incomplete


def test_ctrl_c_in_run_until():
    """SIGINT while run_until is in C: Interrupted with the data so far."""
    m = nsdyn.load(CFG / "bouncing_ball_hunt_crossley.toml",
                   **{"run.t_end": 100.0, "run.output_dt": 1e-3})
    d = m.data()
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt) as e:
        d.run_until(100.0)
    assert isinstance(e.value, nsdyn.Interrupted)
    assert e.value.result.incomplete and len(e.value.result.samples)
    assert "interrupted by signal 2" in str(e.value)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert not d.running
