"""nsdyn from Python: run the engine in process, results as NumPy arrays
(docs/python.md).

    import nsdyn
    model = nsdyn.load("configs/bouncing_ball_newton.toml", contact__e=0.7)
    r = model.run(1.0)
    r["y"], r.units["y"], r.events["t"], r.summary["outcome"], r.config
    d = model.data(); d.run_until(0.5); d.state(); d.next_event()   # a run in parts
    model.sweep(db="study.sqlite")        # the config's [sweep], as nsdyn sweep writes it
    model.continuation()                  # [periodic.continuation], continuation.csv in memory

Readers for what the command line wrote: nsdyn.read_run(folder),
nsdyn.read_sweep(db)."""
from ._capi import lib as _lib
from .errors import ConfigError, Interrupted, NotFoundError, NsdynError, RunFailed
from .model import Data, Model, load
from .result import EVENT_DTYPE, Branch, Orbit, Result, SweepTable, read_run, read_sweep

__version__ = _lib.nsdyn_host_version_string().decode()
host_api_version = (_lib.nsdyn_host_api_version() >> 16, _lib.nsdyn_host_api_version() & 0xFFFF)

__all__ = [
    "load", "Model", "Data", "Result", "Orbit", "Branch", "SweepTable", "read_run", "read_sweep", "EVENT_DTYPE",
    "NsdynError", "ConfigError", "NotFoundError", "RunFailed", "Interrupted",
]
