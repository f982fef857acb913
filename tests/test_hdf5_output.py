"""run.data_format = "csv+hdf5" (docs/configs.md, issue 26): timeseries.h5
holds the very doubles of timeseries.csv, bit for bit, with the channels'
names and units and the run record; h5dump reads it; a run that does not
ask for HDF5 never loads libhdf5. Run by ctest (hdf5_output) with
NSDYN_CLI and NSDYN_SOURCE_DIR set."""
import atexit
import os
import random
import shutil
import subprocess
import tempfile

import h5py
import numpy as np
import pytest

CLI = os.environ["NSDYN_CLI"]
SRC = os.environ["NSDYN_SOURCE_DIR"]
BALL = os.path.join(SRC, "bench", "bouncing_ball_every_step.toml")


# Sanitizer builds: fontconfig (under cairo, the sweep's graphs) keeps process-lifetime
# caches that LeakSanitizer reports (as tests/check_figures.py and test_plot.c suppress them).
_SUPP_DIR = tempfile.mkdtemp()
atexit.register(shutil.rmtree, _SUPP_DIR, True)
SUPP = os.path.join(_SUPP_DIR, "lsan.supp")
with open(SUPP, "w") as f:
    f.write("leak:libfontconfig.so\n")


def nsdyn(*args, env=None):
    env = dict(env or os.environ, LSAN_OPTIONS=f"suppressions={SUPP}:print_suppressions=0")
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=env, timeout=120)


def read_csv(path):
    """Header (names, units) and the numbers as Python reads them: CSV
    numbers are shortest round-trip, so float() gives back the doubles."""
    with open(path) as f:
        header = f.readline().rstrip("\n").split(",")
        rows = [[float(x) for x in line.split(",")] for line in f]
    names = [h[: h.rindex(" [")] for h in header]
    units = [h[h.rindex(" [") + 2 : -1] for h in header]
    return names, units, np.array(rows, dtype=np.float64).reshape(len(rows), len(header))


def same_doubles(a, b):
    """Bit for bit, NaN where NaN (a NaN's payload is not the CSV's to keep)."""
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(
        a[~nan].view(np.uint64), b[~nan].view(np.uint64)
    )


def check_run_dir(d, h5name="timeseries.h5"):
    names, units, csv = read_csv(os.path.join(d, "timeseries.csv"))
    with h5py.File(os.path.join(d, h5name), "r") as f:
        g = f["timeseries"]
        assert list(g.attrs["channels"]) == names
        assert list(g.attrs["units"]) == units
        assert sorted(g.keys()) == sorted(names)
        for c, name in enumerate(names):
            ds = g[name]
            assert ds.dtype == np.dtype("<f8")
            assert ds.attrs["unit"] == units[c] and int(ds.attrs["column"]) == c
            assert same_doubles(ds[...], csv[:, c]), name
        record = open(os.path.join(d, "run.toml")).read()
        # the same record, but for the second it was written in
        strip = lambda t: [l for l in t.splitlines() if not l.startswith("date = ")]
        assert strip(f.attrs["run_toml"]) == strip(record)
        assert f.attrs["outcome"] == "complete"
        assert f.attrs["format"].startswith("nsdyn run data 1")
    return csv.shape


# Randomized balls under Moreau-Jean with a sample every step: times,
# heights, velocities and impulses of every kind of value (negative zero
# included, from the impulses of free flight).
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hdf5_equals_csv_bitwise(tmp_path, seed):
    rng = random.Random(seed)
    h = rng.choice([1e-4, 3e-4, 7e-4])
    y0, e, t_end = rng.uniform(0.2, 3.0), rng.uniform(0.0, 0.95), rng.uniform(0.5, 2.0)
    out = tmp_path / "out"
    r = nsdyn("run", BALL, "-o", str(out), "-q", "--set", 'run.data_format="csv+hdf5"',
              "--set", f"run.t_end={t_end!r}", "--set", f"run.output_dt={h!r}",
              "--set", f"integrator.h={h!r}", "--set", f"initial.y={y0!r}",
              "--set", f"contact.e={e!r}")
    assert r.returncode == 0, r.stderr
    rows, cols = check_run_dir(str(out))
    assert rows > 0.5 / h and cols == 9


def test_h5dump_reads_it(tmp_path):
    out = tmp_path / "out"
    r = nsdyn("run", BALL, "-o", str(out), "-q", "--set", 'run.data_format="csv+hdf5"',
              "--set", "run.t_end=0.01")
    assert r.returncode == 0, r.stderr
    d = subprocess.run(["h5dump", "-A", "-d", "/timeseries/y", str(out / "timeseries.h5")],
                       capture_output=True, text=True)
    assert d.returncode == 0, d.stderr
    assert 'ATTRIBUTE "unit"' in d.stdout and "H5T_IEEE_F64LE" in d.stdout


def test_default_is_csv_and_never_loads_libhdf5(tmp_path):
    out = tmp_path / "out"
    env = dict(os.environ, LD_DEBUG="libs")
    r = nsdyn("run", BALL, "-o", str(out), "-q", "--set", "run.t_end=0.01", env=env)
    assert r.returncode == 0, r.stderr
    assert "timeseries.csv" in os.listdir(out) and "timeseries.h5" not in os.listdir(out)
    assert "libhdf5" not in r.stderr and "libnsdyn_hdf5" not in r.stderr
    # the same with HDF5: the loader's trace names it (the probe works)
    r = nsdyn("run", BALL, "-o", str(tmp_path / "h5"), "-q", "--set", "run.t_end=0.01",
              "--set", 'run.data_format="csv+hdf5"', env=env)
    assert r.returncode == 0 and "libhdf5" in r.stderr


def test_study_writes_every_variant(tmp_path):
    cfg = os.path.join(SRC, "configs", "bouncing_ball_moreau_vs_event.toml")
    out = tmp_path / "cmp"
    r = nsdyn("compare", cfg, "-o", str(out), "-q", "--set", 'run.data_format="csv+hdf5"',
              "--set", "plot.enabled=false")
    assert r.returncode == 0, r.stderr
    dirs = [p for p in out.iterdir() if (p / "run.toml").exists()]
    assert len(dirs) >= 2
    for d in dirs:
        check_run_dir(str(d))


def test_bad_format_names_key_and_choices(tmp_path):
    r = nsdyn("run", BALL, "-o", str(tmp_path / "x"), "--set", 'run.data_format="hdf"')
    assert r.returncode != 0
    assert "data_format" in r.stderr and '"csv+hdf5"' in r.stderr
    assert not (tmp_path / "x").exists()


def test_sweep_threads_write_every_run(tmp_path):
    """A sweep's runs in threads (--in-process -j2): libhdf5 is not thread-safe, the writer
    takes one file at a time (output_hdf5.c); every kept run's file is whole and exact."""
    cfg = os.path.join(SRC, "tests", "fixtures", "sweep_figures.toml")
    out = tmp_path / "sw"
    r = nsdyn("sweep", cfg, "-o", str(out), "-q", "-j2", "--in-process",
              "--set", 'sweep.keep="all"', "--set", 'run.data_format="csv+hdf5"',
              "--set", "plot.enabled=false")
    assert r.returncode == 0, r.stderr
    runs = [str(p.parent) for p in out.rglob("timeseries.h5")]
    assert len(runs) == 9
    for d in runs:
        check_run_dir(d)
