"""Studies from Python (issue 24, docs/python.md): Model.sweep(db=...) writes
the database `nsdyn sweep` writes and returns its rows; Model.continuation()
returns the branch of `nsdyn periodic`'s continuation.csv. Bad input raises
the command's message."""
import csv
import os
import pathlib
import subprocess

import numpy as np
import pytest

import nsdyn

SRC = pathlib.Path(os.environ.get("NSDYN_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
CLI = os.environ.get("NSDYN_CLI", str(SRC / "build" / "core" / "nsdyn"))
CFG = SRC / "configs"
SWEEP = SRC / "tests" / "fixtures" / "host_sweep_ball.toml"


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)


def cli_error(proc):
    return next(ln[7:] for ln in proc.stderr.splitlines() if ln.startswith("error: "))


def without(table, column):
    i = table.columns.index(column)
    return [r[:i] + r[i + 1:] for r in table.rows]


def test_sweep_is_cli_database(tmp_path):
    proc = cli("sweep", SWEEP, "-q", "--no-graphs", "--no-csv", "-o", tmp_path / "cli",
               "--db", tmp_path / "cli.sqlite")
    assert proc.returncode == 0, proc.stderr
    m = nsdyn.load(SWEEP)
    t = m.sweep(db=tmp_path / "api.sqlite")
    assert (t.n_runs, len(t), t.n_done_before, t.n_failed) == (24, 24, 0, 1)
    ref = nsdyn.read_sweep(tmp_path / "cli.sqlite")
    assert t.columns == ref.columns
    assert without(t, "wall") == without(ref, "wall")  # wall: the runs' cost
    # the rows in memory are the rows in the API's file, wall included
    mine = nsdyn.read_sweep(tmp_path / "api.sqlite")
    assert mine.rows == t.rows
    for table in ("axes", "summaries"):
        assert nsdyn.read_sweep(tmp_path / "api.sqlite", table).rows == \
            nsdyn.read_sweep(tmp_path / "cli.sqlite", table).rows
    defs = [dict(nsdyn.read_sweep(tmp_path / f, "sweep").rows) for f in ("api.sqlite", "cli.sqlite")]
    assert defs[0] == defs[1]
    # resumed: nothing run again; in memory: the same rows
    assert m.sweep(db=tmp_path / "api.sqlite").n_done_before == 24
    assert without(m.sweep(), "wall") == without(ref, "wall")
    assert np.array_equal(t.column("impacts")[:6], [9] * 6)


def test_sweep_bad_input(tmp_path):
    with pytest.raises(nsdyn.ConfigError) as e:
        nsdyn.load(CFG / "bouncing_ball_newton.toml").sweep()
    proc = cli("sweep", CFG / "bouncing_ball_newton.toml", "-q", "-o", tmp_path / "x")
    assert proc.returncode == 2 and str(e.value) == cli_error(proc)
    nsdyn.load(SWEEP, **{"run.t_end": 1.4}).sweep(db=tmp_path / "other.sqlite")
    with pytest.raises(OSError) as e:
        nsdyn.load(SWEEP).sweep(db=tmp_path / "other.sqlite")
    proc = cli("sweep", SWEEP, "-q", "--no-graphs", "-o", tmp_path / "y", "--db",
               tmp_path / "other.sqlite")
    assert proc.returncode != 0 and str(e.value) == cli_error(proc)


def csv_text(name, v):
    """A value of column `name` as continuation.csv prints it."""
    if name in ("converged", "stable"):
        return "%d" % v
    if name in ("residual", "mu error (h/2h)"):
        return "%.3e" % v
    if name == "max |mu|" or name.startswith("mu"):
        return "%.9g" % v
    return "%.12g" % v


@pytest.mark.parametrize("config", ["rimless_hub_periodic.toml", "walker_impact_periodic.toml"])
def test_continuation_is_cli_csv(tmp_path, config):
    proc = cli("periodic", CFG / config, "-q", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "continuation.csv") as f:
        rows = list(csv.reader(f))
    b = nsdyn.load(CFG / config).continuation()
    assert b.columns + ["event"] == rows[0]
    assert len(b) == len(rows) - 1 and b.n_converged >= 3 and b.orbit.converged
    for values, event, row in zip(b.values, b.events, rows[1:]):
        assert [csv_text(n, v) for n, v in zip(b.columns, values)] + [event] == row
    # the first orbit is Model.periodic's, bit for bit
    p0 = nsdyn.load(CFG / config).periodic()
    assert b.orbit.period == p0.period and b.orbit.state == p0.state


def test_continuation_bad_input(tmp_path):
    with pytest.raises(nsdyn.ConfigError) as e:
        nsdyn.load(CFG / "bouncing_ball_newton.toml").continuation()
    proc = cli("periodic", CFG / "bouncing_ball_newton.toml", "-q", "-o", tmp_path)
    assert proc.returncode == 2 and str(e.value) == cli_error(proc)
    with pytest.raises(nsdyn.ConfigError, match=r"impact_oscillator\.toml:.*no \[periodic\.cont"):
        nsdyn.load(CFG / "impact_oscillator.toml").continuation()
    with pytest.raises(nsdyn.ConfigError, match="arclength"):
        nsdyn.load(CFG / "impact_oscillator_grazing.toml").continuation()
