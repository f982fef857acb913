"""The Python package nsdyn (issue 24, docs/python.md), run by ctest
(python_nsdyn): NSDYN_HOST_LIB is the library, NSDYN_CLI the command line,
NSDYN_SOURCE_DIR the source tree."""
import os
import pathlib
import resource
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import nsdyn

SRC = pathlib.Path(os.environ.get("NSDYN_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
CLI = os.environ.get("NSDYN_CLI", str(SRC / "build" / "core" / "nsdyn"))
CFG = SRC / "configs"
NEWTON = CFG / "bouncing_ball_newton.toml"


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)


def cli_check(config, *args):
    """`nsdyn run` of a config (nothing is written when it is refused)."""
    out = "/tmp/nsdyn-pytest-check-%d" % os.getpid()
    proc = cli("run", config, *args, "--set", "plot.enabled=false", "-q", "-o", out)
    subprocess.run(["rm", "-rf", out, out + ".INCOMPLETE"])
    return proc


def cli_errors(proc):
    """The CLI's error lines, without the "error: " prefix."""
    return [ln[len("error: "):] for ln in proc.stderr.splitlines() if ln.startswith("error: ")]


def test_version():
    assert nsdyn.host_api_version[0] == 1
    assert nsdyn.__version__.count(".") == 2


# several shipped configs, shortened where long: the samples equal the CLI's
# timeseries.csv bit for bit (the CSV writes shortest round-trip decimals),
# and read_run reads it back
SAME = [
    ("bouncing_ball_newton.toml", ["run.t_end=1.5"]),
    ("bouncing_ball_hunt_crossley.toml", ["run.t_end=0.6"]),
    ("towed_wheel_unstable.toml", ["run.t_end=0.5"]),
    ("rimless_wheel_walk.toml", ["run.t_end=0.5"]),
]


@pytest.mark.parametrize("config,sets", SAME)
def test_channels_equal_cli(tmp_path, config, sets):
    out = tmp_path / "cli"
    setargs = [a for s in sets for a in ("--set", s)]
    proc = cli("run", CFG / config, *setargs, "--set", "plot.enabled=false", "-q", "-o", out)
    assert proc.returncode == 0, proc.stderr
    r = nsdyn.load(CFG / config, sets=sets).run()
    text = (out / "timeseries.csv").read_text().splitlines()
    assert len(text) == 1 + len(r.samples)
    for row, line in zip(r.samples, text[1:]):
        assert [float(x) for x in line.split(",")] == [float(v) for v in row]
    old = nsdyn.read_run(out)
    assert old.names == r.names
    assert old.units == r.units
    assert all(r.units[n] for n in r.names if n != "penetration" or True)
    np.testing.assert_array_equal(old.samples, r.samples)
    assert len(old.events) == len(r.events)
    if len(r.events):
        np.testing.assert_array_equal(old.events["kind"], r.events["kind"])
    # the resolved config of the record is the CLI's (but for provenance)
    cfg_cli = old.config
    cfg_api = r.config
    for section in ("system", "integrator", "run", "initial"):
        assert cfg_api.get(section) == cfg_cli.get(section), section


def test_result_contents():
    m = nsdyn.load(NEWTON, contact__e=0.7)
    r = m.run(1.5)
    assert r.units["y"] == "m" and r.units["vy"] == "m/s" and r.units["t"] == "s"
    assert r.samples.flags["C_CONTIGUOUS"]
    assert r["y"].base is r.samples  # a column is a view: no copy per sample
    assert r.events.dtype == nsdyn.EVENT_DTYPE
    assert list(r.events["kind"][:2]) == ["impact", "impact"]
    g, h = 9.81, 1.0
    assert r.events["t"][0] == pytest.approx((2 * h / g) ** 0.5, abs=1e-9)
    assert r.events["u_after"][0][0] == pytest.approx(-0.7 * r.events["u_before"][0][0], rel=1e-12)
    assert r.config["contact"]["e"] == 0.7
    assert "plugins" in str(r.provenance) or r.provenance
    assert r.summary["outcome"] == "complete" and not r.incomplete
    assert r.summary_line.startswith("complete: t = 1.5 s")


def test_params_and_states_by_name():
    m = nsdyn.load(NEWTON)
    d = m.data()
    assert d.get_param("contact.e") == 0.5
    d.set_param("contact.e", 0.9)
    d.set_state("y", 2.05)
    assert d.get_state("y") == 2.05
    r = d.run(0.2)
    assert d.get_state("y") == pytest.approx(2.05 - 0.5 * 9.81 * 0.04, abs=1e-9)
    assert r["y"][-1] == d.get_state("y")
    c = d.copy()
    assert c.get_param("contact.e") == 0.9
    d.reset()
    assert d.get_param("contact.e") == 0.5 and d.get_state("y") == 1.05
    # model.run with params: the overrides of the call only
    r1 = m.run(0.6, params={"contact.e": 0.3})
    r2 = m.run(0.6)
    assert r1.events["u_after"][0][0] == pytest.approx(0.3 * -r1.events["u_before"][0][0])
    assert r2.events["u_after"][0][0] == pytest.approx(0.5 * -r2.events["u_before"][0][0])


BAD = sorted((SRC / "tests" / "bad-configs").glob("*.toml"))


@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_bad_configs_raise_cli_message(path):
    """A config the CLI refuses raises ConfigError with the CLI's messages."""
    proc = cli_check(path)
    want = cli_errors(proc)
    if proc.returncode != 2 or not want:
        pytest.skip("the CLI accepts it (a run-time problem)")
    with pytest.raises(nsdyn.ConfigError) as e:
        nsdyn.load(path).run()  # some are refused when the run starts (the integrator's h)
    assert e.value.messages == want


def test_missing_config():
    proc = cli_check("/nonexistent/cfg.toml")
    with pytest.raises(nsdyn.ConfigError) as e:
        nsdyn.load("/nonexistent/cfg.toml")
    assert e.value.messages == cli_errors(proc)


def test_bad_overrides_raise_cli_message():
    proc = cli_check(NEWTON, "--set", 'contact.e="x"')
    with pytest.raises(nsdyn.ConfigError) as e:
        nsdyn.load(NEWTON, contact__e="x")
    assert e.value.messages == cli_errors(proc) and "--set" in str(e.value)
    proc = cli_check(NEWTON, "--set", "contact.e=1.5")
    with pytest.raises(nsdyn.ConfigError) as e:
        nsdyn.load(NEWTON, **{"contact.e": 1.5})
    assert e.value.messages == cli_errors(proc)
    # the same value set on a data: the same message
    d = nsdyn.load(NEWTON).data()
    with pytest.raises(nsdyn.ConfigError) as e:
        d.set_param("contact.e", 1.5)
    assert e.value.messages == cli_errors(proc)
    assert d.get_param("contact.e") == 0.5  # refused: nothing changed


def test_unknown_names_and_wrong_types():
    m = nsdyn.load(NEWTON)
    r = m.run(0.3)
    with pytest.raises(nsdyn.NotFoundError, match="unknown channel 'vyy'"):
        r["vyy"]
    with pytest.raises(KeyError):
        r["nothing"]
    with pytest.raises(nsdyn.NotFoundError, match="did you mean 'e'"):
        m.run(0.3, params={"contact.ee": 0.4})
    with pytest.raises(nsdyn.NotFoundError, match="states: x, y, vx, vy"):
        m.run(0.3, state={"z": 1.0})
    with pytest.raises(TypeError, match="expected a real number, found str"):
        m.run(0.3, params={"contact.e": "0.4"})
    with pytest.raises(TypeError):
        nsdyn.load(NEWTON, contact__e=object())
    assert len(m.run(0.3).samples)  # still usable


def test_failed_run_keeps_partial_data():
    proc = cli("run", NEWTON, "--set", "run.max_events=5", "--set", "plot.enabled=false", "-q",
               "-o", "/tmp/nsdyn-pytest-failed-%d" % os.getpid())
    m = nsdyn.load(NEWTON, sets=["run.max_events=5"])
    with pytest.raises(nsdyn.RunFailed) as e:
        m.run()
    r = e.value.result
    assert r.incomplete and r.summary["outcome"] == "failed"
    assert len(r.samples) > 100 and r["t"][-1] <= r.summary["t_reached"]
    assert str(e.value) == r.message and str(e.value) in proc.stderr
    subprocess.run(["rm", "-rf", "/tmp/nsdyn-pytest-failed-%d.INCOMPLETE" % os.getpid()])


LONG = dict(sets=["run.t_end=100", "run.output_dt=1e-3"])


def test_request_stop_from_thread():
    d = nsdyn.load(CFG / "bouncing_ball_hunt_crossley.toml", **LONG).data()
    threading.Timer(0.2, d.request_stop).start()
    with pytest.raises(nsdyn.Interrupted) as e:
        d.run()
    r = e.value.result
    assert r.incomplete and 0 < r.summary["t_reached"] < 100 and len(r.samples)
    assert str(e.value).startswith("interrupted by signal 2 at t = ")


def test_ctrl_c_stops_run_keeps_data():
    """SIGINT while a run is in C (Ctrl-C in a notebook): Interrupted, a
    KeyboardInterrupt, with the data so far; Python's handler back after."""
    m = nsdyn.load(CFG / "bouncing_ball_hunt_crossley.toml", **LONG)
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt) as e:
        m.run()
    assert isinstance(e.value, nsdyn.Interrupted)
    assert e.value.result.incomplete and len(e.value.result.samples)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert not m.run(0.1).incomplete


def test_sweep_in_memory():
    m = nsdyn.load(NEWTON)
    es = [0.2, 0.5, 0.8]
    t = m.sweep("contact.e", es, t_end=0.6, summary=lambda r: r.events["u_after"][0][0])
    assert t.columns[:2] == ["contact.e", "status"] and len(t) == 3
    v_in = (2 * 9.81 * 1.0) ** 0.5
    np.testing.assert_allclose(t.column("summary0"), np.array(es) * v_in, rtol=1e-8)
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    assert list(t.to_pandas()["status"]) == ["ok"] * 3


def test_read_sweep_database(tmp_path):
    cfg = tmp_path / "s.toml"
    cfg.write_text(NEWTON.read_text().replace("[plot]", """[sweep]
[[sweep.axis]]
key = "contact.e"
values = [0.3, 0.6]
[sweep.summary]
v1 = "at_first(impact, vy)"

[plot]"""))
    proc = cli("sweep", cfg, "-q", "--no-graphs", "-o", tmp_path / "out", "--set", "run.t_end=0.6")
    assert proc.returncode == 0, proc.stderr
    t = nsdyn.read_sweep(tmp_path / "out" / "sweep.sqlite")
    m = nsdyn.load(NEWTON)
    mine = m.sweep("contact.e", [0.3, 0.6], t_end=0.6)
    assert list(t.column("status")) == ["ok", "ok"] == list(mine.column("status"))
    assert len(t.column("v1")) == 2
    with pytest.raises(KeyError, match="no table 'nope'"):
        nsdyn.read_sweep(tmp_path / "out" / "sweep.sqlite", "nope")


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def test_no_leak_over_10000_runs():
    """10 000 runs with a parameter changed each time: the resident set
    after them is within 4 MB of the one after 1 000 (a leak of one small
    allocation per run, e.g. 512 B, would add 4.5 MB)."""
    m = nsdyn.load(NEWTON)
    n0, n = 1000, 10000
    for i in range(n0):
        m.run(0.46, params={"contact.e": 0.3 + 0.6 * i / n})
    base = rss_kb()
    for i in range(n0, n):
        r = m.run(0.46, params={"contact.e": 0.3 + 0.6 * i / n})
    grown = rss_kb() - base
    print(f"RSS after {n0} runs {base} kB, after {n} runs +{grown} kB")
    assert r.events["kind"][0] == "impact"
    assert grown < 4096, f"RSS grew by {grown} kB over {n - n0} runs"


def test_threads_share_a_model():
    m = nsdyn.load(NEWTON)
    es = [0.25, 0.45, 0.65, 0.85]
    out = {}

    def work(e):
        out[e] = m.run(0.8, params={"contact.e": e}).samples

    ts = [threading.Thread(target=work, args=(e,)) for e in es]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for e in es:
        np.testing.assert_array_equal(out[e], m.run(0.8, params={"contact.e": e}).samples)


def test_string_config_and_write(tmp_path):
    m = nsdyn.load(None, text=NEWTON.read_text(), name="inline.toml")
    r = m.run(0.5)
    d = m.data()
    d.run(0.5)
    d.write(tmp_path / "o")
    again = nsdyn.read_run(tmp_path / "o")
    np.testing.assert_array_equal(again.samples, r.samples)
    with pytest.raises(nsdyn.ConfigError, match=r"^broken.toml:2:"):
        nsdyn.load(None, text='title = "x"\n[system\n', name="broken.toml")


def test_periodic_equals_cli(tmp_path):
    """The orbit and multipliers of `nsdyn periodic`, bit for bit as it
    writes them (shortest round-trip decimals); the rimless
    hub's closed form (docs/periodic.md) is the CLI's own test."""
    cfg = CFG / "rimless_hub_periodic.toml"
    proc = cli("periodic", cfg, "-q", "--set", "plot.enabled=false", "-o", tmp_path / "p")
    assert proc.returncode == 0, proc.stderr
    o = nsdyn.load(cfg).periodic()
    assert o.converged and o.stable
    rows = [ln.split(",") for ln in (tmp_path / "p" / "orbit.csv").read_text().splitlines()[1:]]
    for name, value, unit, free in rows:
        got = o.period if name == "period" else o.state[name]
        assert got == float(value), name
        if name != "period":
            assert o.units[name] == unit and (name in o.free) == (free == "1")
    mult = [ln.split(",") for ln in (tmp_path / "p" / "multipliers.csv").read_text().splitlines()[1:]]
    assert [(m.real, m.imag) for m in o.multipliers] == \
        [(float(re), float(im)) for re, im, _ in mult]


def test_periodic_without_section_raises():
    with pytest.raises(nsdyn.ConfigError, match=r"\[periodic\]"):
        nsdyn.load(NEWTON).periodic()
