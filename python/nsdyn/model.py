"""Models and data over the host API (core/include/nsdyn/host.h).

    model = nsdyn.load("configs/bouncing_ball_newton.toml", **{"contact.e": 0.7})
    r = model.run(1.0)                      # a Result
    r = model.run(1.0, params={"contact.e": 0.6}, state={"y": 2.0})

A Model is constant and may be shared by threads; each thread runs on its
own Data (model.run keeps one per thread)."""
import _signal
import ctypes
import signal
import threading

import numpy as np

from . import _capi as C
from .errors import ConfigError, Interrupted, NotFoundError, NsdynError, RunFailed
from .result import EVENT_DTYPE, Orbit, Result


_MAIN = threading.main_thread().ident


def _toml_value(v):
    """A Python value as the TOML text of a --set override."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v)).replace("inf", "inf")
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"override value {v!r}: expected a number, string, bool or list")


def _key(name):
    """'contact.e', or contact__e (a keyword argument) -> 'contact.e'."""
    return name if "." in name else name.replace("__", ".")


def _take_errors(ptr):
    if not ptr:
        return []
    n = C.lib.nsdyn_errors_count(ptr)
    out = [C.lib.nsdyn_errors_at(ptr, i).decode() for i in range(n)]
    C.lib.nsdyn_errors_free(ptr)
    return out


def load(config, *, sets=(), text=None, name=None, **overrides):
    """Open a config: a path (or TOML `text`, named `name` in messages)
    with overrides, as `nsdyn run --set`: keyword arguments
    ("contact__e=0.7", or **{"contact.e": 0.7}) and `sets`
    (["contact.e=0.7"]). Raises ConfigError with every message."""
    lines = [str(s) for s in sets]
    lines += [f"{_key(k)}={_toml_value(v)}" for k, v in overrides.items()]
    arr = (ctypes.c_char_p * max(1, len(lines)))(*[s.encode() for s in lines])
    model, errs = ctypes.c_void_p(), ctypes.c_void_p()
    if text is not None:
        st = C.lib.nsdyn_model_open_string(
            text.encode(), (name or "<string>").encode(), arr, len(lines),
            ctypes.byref(model), ctypes.byref(errs))
    else:
        if config is None:
            raise TypeError("load(config): a path, or text=...")
        st = C.lib.nsdyn_model_open(
            str(config).encode(), arr, len(lines), ctypes.byref(model), ctypes.byref(errs))
    if st != C.OK:
        raise ConfigError(_take_errors(errs.value) or [f"the config was refused (status {st})"])
    return Model(model.value)


class Model:
    """A config opened and checked: constant, shareable between threads."""

    def __init__(self, handle):
        self._h = handle
        self._local = threading.local()
        self._live = 0  # Data over this model not yet freed
        self._dead = False

    def __del__(self):
        # The garbage collector may finalize a model before its data (a
        # cycle through the per-thread data): the last data frees it then.
        self._dead = True
        self._free_if_unused()

    def _free_if_unused(self):
        if self._dead and not self._live and getattr(self, "_h", None):
            C.lib.nsdyn_model_free(self._h)
            self._h = None

    @property
    def title(self):
        return C.lib.nsdyn_model_title(self._h).decode()

    @property
    def path(self):
        return C.lib.nsdyn_model_path(self._h).decode()

    def data(self):
        """A new Data: one per thread."""
        return Data(self)

    def _data(self):
        d = getattr(self._local, "data", None)
        if d is None:
            d = self._local.data = Data(self)
        return d

    def run(self, t_end=None, params=None, state=None):
        """Run from the initial state to t_end [s] (None: the config's
        run.t_end) with parameters and initial states changed by name;
        returns a Result. A failed or interrupted run raises RunFailed /
        Interrupted with the data so far on .result (incomplete)."""
        d = self._data()
        d.reset_if_changed(params, state)
        return d.run(t_end)

    def periodic(self, params=None, state=None):
        """The periodic orbit of the config's [periodic] section by
        shooting from the initial state (docs/periodic.md): an Orbit.
        Newton not converging raises RunFailed with the Orbit reached on
        .result; a missing or bad [periodic], ConfigError."""
        d = self._data()
        d.reset_if_changed(params, state)
        return d.periodic()

    def continuation(self, params=None, state=None):
        """The natural continuation of [periodic.continuation]
        (docs/periodic.md) as `nsdyn periodic` makes it: a Branch, the
        rows of continuation.csv at full precision, with the first orbit
        on .orbit. A first orbit that does not converge raises RunFailed
        (the Orbit on .result); no [periodic.continuation], or method =
        "arclength", ConfigError."""
        d = self._data()
        d.reset_if_changed(params, state)
        return d.continuation()

    def sweep(self, param=None, values=None, t_end=None, summary=None, state=None, *, db=None,
              params=None):
        """Without `param`: the config's [sweep] study (docs/sweep.md),
        its rows written to the SQLite database `db` as `nsdyn sweep --db`
        writes them (None: a database in memory only; a database of
        finished runs resumes) and returned as a SweepTable of the runs
        table (NULL as None). `params`/`state` change the study's base
        config as --set does.

        With `param` (e.g. "contact.e"): one run per value of `values`;
        a SweepTable with the value, the outcome, the time reached, the
        event count and `summary(result)` (a number or a tuple of numbers,
        if given). Failed runs are rows with status 'failed'."""
        from .result import SweepTable

        d = self._data()
        if param is None:
            d.reset_if_changed(params, state)
            return d.sweep(db)
        rows = []
        for v in values:
            d.reset_if_changed({param: v}, state)
            try:
                r = d.run(t_end)
                status, msg = "ok", ""
            except RunFailed as e:
                r, status, msg = e.result, "failed", str(e)
            s = summary(r) if summary else ()
            s = s if isinstance(s, tuple) else (s,)
            rows.append((float(v), status, r.summary["t_reached"], len(r.events), msg) + s)
        cols = [param, "status", "t_reached", "n_events", "message"]
        cols += [f"summary{i}" for i in range(len(rows[0]) - 5)] if rows else []
        return SweepTable(cols, rows)


class Data:
    """What one run changes: overrides, instances, the last run. Not shared
    between threads."""

    def __init__(self, model):
        self.model = model  # keeps the model alive
        h, errs = ctypes.c_void_p(), ctypes.c_void_p()
        if C.lib.nsdyn_data_create(model._h, ctypes.byref(h), ctypes.byref(errs)) != C.OK:
            raise ConfigError(_take_errors(errs.value))
        self._h = h.value
        self._applied = ({}, {})
        self._keys = {}  # parameter names given -> their SECTION.KEY, encoded
        self._gen = 0
        model._live += 1

    def __del__(self):
        if getattr(self, "_h", None):
            C.lib.nsdyn_data_free(self._h)
            self._h = None
            self.model._live -= 1
            self.model._free_if_unused()

    def _error(self):
        return C.lib.nsdyn_data_last_error(self._h).decode()

    def _check(self, st):
        if st == C.OK:
            return
        msg = self._error()
        if st == C.ERR_NOT_FOUND:
            raise NotFoundError(msg)
        if st == C.ERR_CONFIG:
            raise ConfigError(msg.split("\n"))
        raise NsdynError(msg or f"status {st}")

    @staticmethod
    def _number(name, value):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"'{name}': expected a real number, found {type(value).__name__}")
        return float(value)

    def set_param(self, name, value):
        self._check(C.lib.nsdyn_data_set_param(self._h, _key(name).encode(),
                                               self._number(name, value)))

    def get_param(self, name):
        out = ctypes.c_double()
        self._check(C.lib.nsdyn_data_get_param(self._h, _key(name).encode(), ctypes.byref(out)))
        return out.value

    def set_state(self, name, value):
        self._check(C.lib.nsdyn_data_set_state(self._h, name.encode(), self._number(name, value)))

    def get_state(self, name):
        out = ctypes.c_double()
        self._check(C.lib.nsdyn_data_get_state(self._h, name.encode(), ctypes.byref(out)))
        return out.value

    def reset(self):
        self._check(C.lib.nsdyn_data_reset(self._h))
        self._applied = ({}, {})

    def copy(self):
        h, errs = ctypes.c_void_p(), ctypes.c_void_p()
        if C.lib.nsdyn_data_copy(self._h, ctypes.byref(h), ctypes.byref(errs)) != C.OK:
            raise ConfigError(_take_errors(errs.value))
        d = Data.__new__(Data)
        d.model, d._h, d._applied, d._gen, d._keys = self.model, h.value, self._applied, 0, {}
        self.model._live += 1
        return d

    def reset_if_changed(self, params, state):
        """Make the overrides exactly `params` and `state` (dicts), setting
        only what changed since the last call."""
        params = dict(params) if params else {}
        state = dict(state) if state else {}
        old_p, old_s = self._applied
        if not (old_p.keys() <= params.keys() and old_s.keys() <= state.keys()):
            self.reset()
            old_p, old_s = {}, {}
        for k, v in params.items():
            if old_p.get(k) != v:
                kb = self._keys.get(k)
                if kb is not None and type(v) is float:  # the common case, without checks
                    self._check(C.lib.nsdyn_data_set_param(self._h, kb, v))
                else:
                    self.set_param(k, v)
                    self._keys[k] = _key(k).encode()
        for k, v in state.items():
            if old_s.get(k) != v:
                self.set_state(k, v)
        self._applied = (params, state)

    def request_stop(self):
        """Stop the run in progress on this data (from another thread)."""
        C.lib.nsdyn_data_request_stop(self._h)

    def run(self, t_end=None):
        """Run; returns a Result, or raises RunFailed / Interrupted (with
        .result) / ConfigError."""
        # In the main thread with Python's own handler, Ctrl-C stops the run
        # in C (Python's handler cannot run meanwhile): the library's handler
        # for the run only. (_signal: no enum wrapping, a few us a run.)
        main = threading.get_ident() == _MAIN and \
            _signal.getsignal(signal.SIGINT) is _signal.default_int_handler
        run = C.lib.nsdyn_data_run_catching_sigint if main else C.lib.nsdyn_data_run
        st = run(self._h, float(t_end) if t_end else 0.0)
        self._gen += 1
        if st in (C.OK, C.ERR_RUN_FAILED, C.ERR_INTERRUPTED):
            r = self.result()
            if st == C.ERR_RUN_FAILED:
                raise RunFailed(r.message, r)
            if st == C.ERR_INTERRUPTED:
                raise Interrupted(r.message, r)
            return r
        self._check(st)

    # ---- a run a step at a time (host.h 1.1) ----

    def _catching(self):
        """Ctrl-C stops the calls that simulate, as in run()."""
        main = threading.get_ident() == _MAIN and \
            _signal.getsignal(signal.SIGINT) is _signal.default_int_handler
        C.lib.nsdyn_data_catch_sigint(self._h, 1 if main else 0)

    def _advance(self, st):
        """OK: True; ENDED: False; a failure raises with the run so far."""
        if st == C.OK:
            return True
        if st == C.ENDED:
            return False
        if st in (C.ERR_RUN_FAILED, C.ERR_INTERRUPTED):
            self._gen += 1
            r = self.result()
            raise (RunFailed if st == C.ERR_RUN_FAILED else Interrupted)(r.message, r)
        if st == C.ERR_ARGUMENT:
            raise ValueError(self._error())
        self._check(st)

    def start(self):
        """Start a new run from the initial state (the first sample taken,
        no step), ending one in progress."""
        self._catching()
        self._gen += 1
        self._advance(C.lib.nsdyn_data_start(self._h))

    def step(self):
        """One integrator step of the run in progress (started if none
        was since the last change). False when the run had already ended
        (nothing done): start() a new one."""
        self._catching()
        return self._advance(C.lib.nsdyn_data_step(self._h))

    def run_until(self, t):
        """Steps until the clock reaches t [s] (the last step ends at or
        past it) or the run ends; the same run as run() bit for bit. True
        when the clock reached t; t past run.t_end raises ValueError."""
        self._catching()
        if not self._advance(C.lib.nsdyn_data_run_until(self._h, self._number("t", t))):
            return False
        return self.time >= t

    def next_event(self):
        """Steps to the next event of the run and returns it (a dict: t,
        kind, contact, u_before, u_after, impulse, as Result.events), or
        None when the run ends without another."""
        self._catching()
        e = C.Event()
        if not self._advance(C.lib.nsdyn_data_run_to_event(self._h, ctypes.byref(e))):
            return None
        return {"t": e.t, "kind": e.kind.decode(), "contact": e.contact.decode(),
                "u_before": tuple(e.u_before), "u_after": tuple(e.u_after),
                "impulse": tuple(e.impulse)}

    @property
    def running(self):
        """A run advanced by steps goes on."""
        return bool(C.lib.nsdyn_data_running(self._h))

    @property
    def time(self):
        """The clock [s]: of the run in progress, else where the last run
        ended, else run.t_start."""
        out = ctypes.c_double()
        self._check(C.lib.nsdyn_data_time(self._h, ctypes.byref(out)))
        return out.value

    def state(self):
        """The states by name at the clock (dict name -> value)."""
        return {n: self.get_state(n) for n in self.model_state_names()}

    def result(self):
        """The last run as a Result (its own copy of the samples: one
        copy of the whole block, none per sample)."""
        h, lib = self._h, C.lib
        raw = lib.nsdyn_data_channel_list(h, 0)
        if raw != getattr(self, "_raw", None):  # the channels change with the plugins' layout
            self._raw = raw
            self._names = raw.decode().split("\n")
            self._units = lib.nsdyn_data_channel_list(h, 1).decode().split("\n")
        names, units, nc = list(self._names), self._units, len(self._names)
        ptr, rows = C.c_double_p(), ctypes.c_size_t()
        self._check(lib.nsdyn_data_samples(h, ctypes.byref(ptr), ctypes.byref(rows)))
        # one memmove of the block (np.ctypeslib.as_array costs ~10 us a call)
        samples = np.empty((rows.value, nc))
        if rows.value:
            ctypes.memmove(samples.__array_interface__["data"][0], ptr, samples.nbytes)
        s = C.Summary()
        self._check(lib.nsdyn_data_summary(h, ctypes.byref(s)))
        summary = (s, s.message.decode())  # a dict when asked (Result.summary)
        n = lib.nsdyn_data_event_count(h)
        e, rows, ref = C.Event(), [], ctypes.byref
        for i in range(n):
            lib.nsdyn_data_event(h, i, ref(e))
            rows.append((e.t, e.kind.decode(), e.contact.decode(), e.u_before[:],
                         e.u_after[:], e.impulse[:]))
        events = np.array(rows, dtype=EVENT_DTYPE)
        gen = self._gen
        return Result(names, units, samples, events, summary,
                      log=lib.nsdyn_data_log(h).decode(), record=lambda: self._record(gen),
                      line=lambda: self._line(gen))

    def _line(self, gen):
        self._same_run(gen)
        return C.lib.nsdyn_data_summary_line(self._h).decode()

    def _same_run(self, gen):
        if gen != self._gen:
            raise NsdynError("this result's run.toml and summary line are gone: its data has "
                             "run again (read them before the next run, or use write())")

    def _record(self, gen):
        self._same_run(gen)
        p = ctypes.c_void_p()
        self._check(C.lib.nsdyn_data_record(self._h, ctypes.byref(p)))
        try:
            return ctypes.string_at(p.value).decode()
        finally:
            C.lib.nsdyn_host_free(p)

    def periodic(self):
        """See Model.periodic."""
        p = C.Periodic()
        self._catching()
        st = C.lib.nsdyn_data_periodic(self._h, ctypes.byref(p))
        return self._orbit(st, p)

    def continuation(self):
        """See Model.continuation."""
        from .result import Branch

        p, b = C.Periodic(), C.Branch()
        self._catching()
        st = C.lib.nsdyn_data_continuation(self._h, ctypes.byref(p), ctypes.byref(b))
        if st == C.ERR_RUN_FAILED:
            self._orbit(st, p)  # raises, with the orbit reached
        orbit = self._orbit(C.OK, p) if p.n_state else None
        nc, nr = b.n_columns, b.n_rows
        values = np.array(b.values[: nr * nc], dtype=float).reshape(nr, nc) if nr else \
            np.empty((0, nc))
        branch = Branch([b.columns[c].decode() for c in range(nc)], values,
                        [b.event[r].decode() for r in range(nr)], orbit, b.n_converged)
        if st == C.ERR_INTERRUPTED:
            raise Interrupted(self._error(), branch)
        self._check(st)
        return branch

    def _orbit(self, st, p):
        """The Orbit of a shooting's struct p; raises by status st."""
        self._gen += 1
        if st not in (C.OK, C.ERR_RUN_FAILED, C.ERR_INTERRUPTED):
            self._check(st)
        names = self.model_state_names()
        nf = p.n_free
        free = [p.free[i] for i in range(nf)]
        jac = np.array(p.jacobian[: nf * nf], dtype=float).reshape(nf, nf)
        mult = np.array(p.mult_re[:nf]) + 1j * np.array(p.mult_im[:nf])
        orbit = Orbit(
            converged=bool(p.converged), stable=bool(p.stable), period=p.period,
            state=dict(zip(names, p.state[: p.n_state])),
            units=dict(zip(names, self._units[1: 1 + len(names)])),
            free=[names[i] for i in free], multipliers=mult, jacobian=jac,
            residual=p.residual, iterations=p.iterations, mult_error=p.mult_error,
            map_evals=p.map_evals, message=p.message.decode(),
        )
        if st == C.ERR_RUN_FAILED:
            raise RunFailed(self._error(), orbit)
        if st == C.ERR_INTERRUPTED:
            raise Interrupted(self._error(), orbit)
        return orbit

    def sweep(self, db=None):
        """See Model.sweep (the [sweep] study)."""
        from .result import SweepTable

        self._catching()
        t = C.Sweep()
        st = C.lib.nsdyn_data_sweep(self._h, None if db is None else str(db).encode(),
                                    ctypes.byref(t))
        self._gen += 1
        if st == C.ERR_IO:
            raise OSError(self._error())
        if st not in (C.OK, C.ERR_INTERRUPTED):
            self._check(st)
        nc = t.n_columns
        cols = [t.columns[c].decode() for c in range(nc)]
        rows = []
        for r in range(t.n_rows):
            row = []
            for c in range(nc):
                i = r * nc + c
                if t.text[i] is not None:
                    row.append(t.text[i].decode())
                elif t.num[i] != t.num[i]:  # NaN: NULL in the database
                    row.append(None)
                else:
                    row.append(int(t.num[i]) if c == 0 else t.num[i])
            rows.append(tuple(row))
        table = SweepTable(cols, rows)
        table.n_runs, table.n_done_before, table.n_failed = t.n_runs, t.n_done_before, t.n_failed
        if st == C.ERR_INTERRUPTED:
            raise Interrupted(self._error(), table)
        return table

    def model_state_names(self):
        """The state names (the channels after t, as many as states)."""
        raw = C.lib.nsdyn_data_channel_list(self._h, 0)
        if raw != getattr(self, "_raw", None):
            self._raw = raw
            self._names = raw.decode().split("\n")
            self._units = C.lib.nsdyn_data_channel_list(self._h, 1).decode().split("\n")
        p = ctypes.c_double()
        n = 0
        for name in self._names[1:]:  # states come first, in order (model.h)
            if C.lib.nsdyn_data_get_state(self._h, name.encode(), ctypes.byref(p)) != C.OK:
                break
            n += 1
        return self._names[1: 1 + n]

    def write(self, folder):
        """The last run's outputs into folder, as `nsdyn run` writes them
        (no graphs)."""
        self._check(C.lib.nsdyn_data_write(self._h, str(folder).encode()))
