"""Results: of a run in memory (Result), of a run folder written by
`nsdyn run` (read_run), of a sweep database (read_sweep)."""
import csv
import pathlib

import numpy as np

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

EVENT_DTYPE = np.dtype(
    [
        ("t", "f8"),  # [s]
        ("kind", "U12"),
        ("contact", "U48"),
        ("u_before", "f8", (3,)),  # local velocity (normal, t1, t2) [m/s]
        ("u_after", "f8", (3,)),  # [m/s]
        ("impulse", "f8", (3,)),  # [N s]
    ]
)


class Result:
    """One run: `samples` (rows x channels, one array), `channels` (name ->
    column, a view of `samples`: no copy per sample), `units` (name ->
    unit), `events` (a structured array, EVENT_DTYPE), `summary` (dict),
    `incomplete`, `message`, `log`, and `record` / `config` / `provenance`
    (run.toml's text and its parsed tables)."""

    def __init__(self, names, units, samples, events, summary, log="", record=None, line=None):
        self.names = names
        self.units = dict(zip(names, units))
        self.samples = samples
        self.events = events
        self._summary = summary  # a dict, or (a host summary struct, its message)
        self.log = log
        self._record = record  # text, or a callable that returns it
        self._line = line
        self._channels = None

    @property
    def summary(self):
        """outcome, incomplete, t_reached [s], wall_seconds [s], steps,
        rhs_evals, rejected_steps, n_events, message."""
        if isinstance(self._summary, tuple):
            s, message = self._summary
            self._summary = {
                "outcome": ("complete", "stopped", "failed", "going")[s.outcome],
                "incomplete": bool(s.incomplete), "t_reached": s.t_reached,
                "wall_seconds": s.wall_seconds, "steps": s.steps, "rhs_evals": s.rhs_evals,
                "rejected_steps": s.rejected_steps, "n_events": s.n_events, "message": message,
            }
        return self._summary

    @property
    def channels(self):
        """name -> column (a view of samples)."""
        if self._channels is None:
            self._channels = {n: self.samples[:, i] for i, n in enumerate(self.names)}
        return self._channels

    @property
    def summary_line(self):
        """The command line's summary line of the run."""
        if callable(self._line):
            self._line = self._line()
        return self._line

    def __getitem__(self, name):
        try:
            return self.samples[:, self.names.index(name)]
        except ValueError:
            from .errors import NotFoundError

            raise NotFoundError(
                f"unknown channel '{name}' (channels: {', '.join(self.names)})"
            ) from None

    def __repr__(self):
        return (
            f"<nsdyn.Result {self.summary.get('outcome', '?')}, {len(self.samples)} samples x "
            f"{len(self.names)} channels, {len(self.events)} events>"
        )

    @property
    def t(self):
        return self.channels["t"]

    @property
    def incomplete(self):
        return bool(self.summary.get("incomplete", False))

    @property
    def message(self):
        return self.summary.get("message", "")

    @property
    def record(self):
        """run.toml's text: the resolved config, the plugins (paths and
        SHA-256), the outcome."""
        if callable(self._record):
            self._record = self._record()
        return self._record

    @property
    def run_toml(self):
        """run.toml parsed (a dict)."""
        return _parse_toml(self.record) if self.record is not None else None

    @property
    def provenance(self):
        """run.toml's [provenance]: versions, plugin files and hashes."""
        p = self.run_toml
        return None if p is None else p.get("provenance")

    @property
    def config(self):
        """The resolved config: run.toml's tables other than [provenance]
        and [status] (how the run ended)."""
        p = self.run_toml
        return None if p is None else {k: v for k, v in p.items()
                                       if k not in ("provenance", "status")}

    def to_pandas(self):
        import pandas as pd  # python3-pandas, optional

        return pd.DataFrame(self.samples, columns=self.names)


class Orbit:
    """A periodic orbit (Model.periodic, as `nsdyn periodic` finds it):
    `converged`, `stable`, `period` [s], `state` (name -> value on the
    orbit after the section), `units`, `free` (the free states' names),
    `multipliers` (complex, by modulus descending), `jacobian` (of the
    return map on the free states), `residual`, `iterations`,
    `mult_error`, `map_evals`, `message`."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        mods = ", ".join(f"{abs(m):.6g}" for m in self.multipliers)
        return (f"<nsdyn.Orbit {'converged' if self.converged else 'NOT converged'}, "
                f"period {self.period:.9g} s, |multipliers| {mods}, "
                f"{'stable' if self.stable else 'unstable'}>")


class Branch:
    """A continuation's branch (Model.continuation): continuation.csv in
    memory. `columns` (the CSV's header but its last column), `values`
    (rows x columns, full precision), `events` (the CSV's last column, ""
    where nothing happened), `column(name)`, `orbit` (the first orbit, an
    Orbit), `n_converged`, `to_pandas()`."""

    def __init__(self, columns, values, events, orbit, n_converged):
        self.columns = list(columns)
        self.values = values
        self.events = list(events)
        self.orbit = orbit
        self.n_converged = n_converged

    def __len__(self):
        return len(self.values)

    def column(self, name):
        return self.values[:, self.columns.index(name)]

    def __repr__(self):
        return (f"<nsdyn.Branch along {self.columns[0]}: {len(self)} points, "
                f"{self.n_converged} converged>")

    def to_pandas(self):
        import pandas as pd

        df = pd.DataFrame(self.values, columns=self.columns)
        df["event"] = self.events
        return df


def _parse_toml(text):
    if tomllib is None:
        raise RuntimeError("reading TOML needs Python 3.11 (tomllib)")
    return tomllib.loads(text)


def _read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def read_run(folder):
    """A run folder written by `nsdyn run` (timeseries.csv or
    timeseries.INCOMPLETE.csv, events.csv, run.toml) as a Result. The
    units come from run.toml's [channels] when it lists them."""
    folder = pathlib.Path(folder)
    data = folder / "timeseries.csv"
    incomplete = not data.exists()
    if incomplete:
        data = folder / "timeseries.INCOMPLETE.csv"
    if not data.exists():
        raise FileNotFoundError(f"{folder}: no timeseries.csv or timeseries.INCOMPLETE.csv")
    header, rows = _read_csv(data)
    names, units = [], []
    for h in header:  # "name [unit]" or "name"
        if h.endswith("]") and " [" in h:
            n, u = h[:-1].split(" [", 1)
        else:
            n, u = h, ""
        names.append(n)
        units.append(u)
    samples = np.array(rows, dtype=float).reshape(len(rows), len(names))
    events = np.zeros(0, dtype=EVENT_DTYPE)
    ev = folder / "events.csv"
    if ev.exists():
        eh, erows = _read_csv(ev)
        events = np.zeros(len(erows), dtype=EVENT_DTYPE)
        col = {h.split(" [")[0]: i for i, h in enumerate(eh)}
        for i, r in enumerate(erows):
            events[i]["t"] = float(r[col["t"]])
            events[i]["kind"] = r[col["kind"]] if "kind" in col else ""
            events[i]["contact"] = r[col["contact"]] if "contact" in col else ""
    record_path = folder / "run.toml"
    record = record_path.read_text() if record_path.exists() else None
    summary = {"incomplete": incomplete}
    if record is not None and tomllib is not None:
        res = tomllib.loads(record).get("status", {})
        summary.update({k: v for k, v in res.items() if not isinstance(v, dict)})
        summary["incomplete"] = incomplete
    return Result(names, units, samples, events, summary, record=record)


class SweepTable:
    """Rows of a sweep database's table: `columns`, `rows` (tuples),
    `column(name)` as a NumPy array, `to_pandas()`."""

    def __init__(self, columns, rows):
        self.columns = list(columns)
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def column(self, name):
        i = self.columns.index(name)
        vals = [r[i] for r in self.rows]
        try:
            return np.array(vals, dtype=float)
        except (TypeError, ValueError):
            return np.array(vals, dtype=object)

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.rows, columns=self.columns)


def read_sweep(path, table="runs"):
    """A table of a sweep's SQLite database (docs/sweep.md; `runs` by
    default), read-only."""
    path = pathlib.Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such sweep database")
    import sqlite3  # here, not at import: only reading a study maps SQLite (issue 26)

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if table not in names:
            raise KeyError(f"{path}: no table '{table}' (tables: {', '.join(names)})")
        cur = con.execute(f'SELECT * FROM "{table}"')
        cols = [d[0] for d in cur.description]
        return SweepTable(cols, cur.fetchall())
    finally:
        con.close()
