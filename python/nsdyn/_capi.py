"""ctypes declarations of the host API (core/include/nsdyn/host.h).

The library is found, in order, at $NSDYN_HOST_LIB; in
$NSDYN_PYTHON_BUILD_DIR/core (set by the .pth file scripts/install-python.sh
writes); in the build folder of the source tree this package lies in
(python/../build/core); where the dynamic loader finds libnsdyn_host.so
(an installed nsdyn)."""
import ctypes
import ctypes.util
import os
import pathlib

API_MAJOR = 1  # NSDYN_HOST_API_MAJOR this package was written against
API_MINOR = 1  # the functions it calls came with this minor version

c_double_p = ctypes.POINTER(ctypes.c_double)


class Summary(ctypes.Structure):
    _fields_ = [
        ("outcome", ctypes.c_int),
        ("incomplete", ctypes.c_int),
        ("t_reached", ctypes.c_double),
        ("wall_seconds", ctypes.c_double),
        ("steps", ctypes.c_uint64),
        ("rhs_evals", ctypes.c_uint64),
        ("rejected_steps", ctypes.c_uint64),
        ("n_events", ctypes.c_size_t),
        ("message", ctypes.c_char_p),
    ]


class Event(ctypes.Structure):
    _fields_ = [
        ("t", ctypes.c_double),
        ("kind", ctypes.c_char_p),
        ("contact", ctypes.c_char_p),
        ("u_before", ctypes.c_double * 3),
        ("u_after", ctypes.c_double * 3),
        ("impulse", ctypes.c_double * 3),
    ]


class Periodic(ctypes.Structure):
    _fields_ = [
        ("converged", ctypes.c_int),
        ("stable", ctypes.c_int),
        ("iterations", ctypes.c_int),
        ("residual", ctypes.c_double),
        ("period", ctypes.c_double),
        ("n_state", ctypes.c_size_t),
        ("state", c_double_p),
        ("n_free", ctypes.c_size_t),
        ("free", ctypes.POINTER(ctypes.c_size_t)),
        ("mult_re", c_double_p),
        ("mult_im", c_double_p),
        ("jacobian", c_double_p),
        ("mult_error", ctypes.c_double),
        ("map_evals", ctypes.c_size_t),
        ("message", ctypes.c_char_p),
    ]


class Sweep(ctypes.Structure):
    _fields_ = [
        ("n_runs", ctypes.c_size_t),
        ("n_rows", ctypes.c_size_t),
        ("n_done_before", ctypes.c_size_t),
        ("n_failed", ctypes.c_size_t),
        ("n_columns", ctypes.c_size_t),
        ("columns", ctypes.POINTER(ctypes.c_char_p)),
        ("num", c_double_p),
        ("text", ctypes.POINTER(ctypes.c_char_p)),
    ]


class Branch(ctypes.Structure):
    _fields_ = [
        ("n_rows", ctypes.c_size_t),
        ("n_columns", ctypes.c_size_t),
        ("columns", ctypes.POINTER(ctypes.c_char_p)),
        ("values", c_double_p),
        ("event", ctypes.POINTER(ctypes.c_char_p)),
        ("n_converged", ctypes.c_size_t),
    ]


def _candidates():
    env = os.environ.get("NSDYN_HOST_LIB")
    if env:
        yield env
        return
    here = pathlib.Path(__file__).resolve().parent
    build = os.environ.get("NSDYN_PYTHON_BUILD_DIR")
    if build:
        yield str(pathlib.Path(build) / "core" / "libnsdyn_host.so")
    yield str(here.parent.parent / "build" / "core" / "libnsdyn_host.so")
    found = ctypes.util.find_library("nsdyn_host")
    if found:
        yield found


def _open():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError(
        "nsdyn: libnsdyn_host.so not found (build nsdyn with scripts/build.sh, or set "
        "NSDYN_HOST_LIB to the library); tried: " + ", ".join(tried or ["the loader path"])
    )


lib = _open()
P = ctypes.c_void_p
_sig = {
    "nsdyn_host_api_version": (ctypes.c_uint32, []),
    "nsdyn_host_version_string": (ctypes.c_char_p, []),
    "nsdyn_host_free": (None, [P]),
    "nsdyn_model_open": (
        ctypes.c_int,
        [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
         ctypes.POINTER(P), ctypes.POINTER(P)],
    ),
    "nsdyn_model_open_string": (
        ctypes.c_int,
        [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
         ctypes.POINTER(P), ctypes.POINTER(P)],
    ),
    "nsdyn_model_free": (None, [P]),
    "nsdyn_model_title": (ctypes.c_char_p, [P]),
    "nsdyn_model_path": (ctypes.c_char_p, [P]),
    "nsdyn_errors_count": (ctypes.c_size_t, [P]),
    "nsdyn_errors_at": (ctypes.c_char_p, [P, ctypes.c_size_t]),
    "nsdyn_errors_free": (None, [P]),
    "nsdyn_data_create": (ctypes.c_int, [P, ctypes.POINTER(P), ctypes.POINTER(P)]),
    "nsdyn_data_copy": (ctypes.c_int, [P, ctypes.POINTER(P), ctypes.POINTER(P)]),
    "nsdyn_data_free": (None, [P]),
    "nsdyn_data_reset": (ctypes.c_int, [P]),
    "nsdyn_data_last_error": (ctypes.c_char_p, [P]),
    "nsdyn_data_set_param": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_double]),
    "nsdyn_data_get_param": (ctypes.c_int, [P, ctypes.c_char_p, c_double_p]),
    "nsdyn_data_set_state": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_double]),
    "nsdyn_data_get_state": (ctypes.c_int, [P, ctypes.c_char_p, c_double_p]),
    "nsdyn_data_run": (ctypes.c_int, [P, ctypes.c_double]),
    "nsdyn_data_run_catching_sigint": (ctypes.c_int, [P, ctypes.c_double]),
    "nsdyn_data_request_stop": (None, [P]),
    "nsdyn_data_periodic": (ctypes.c_int, [P, ctypes.POINTER(Periodic)]),
    "nsdyn_data_channel_count": (ctypes.c_size_t, [P]),
    "nsdyn_data_channel_name": (ctypes.c_char_p, [P, ctypes.c_size_t]),
    "nsdyn_data_channel_unit": (ctypes.c_char_p, [P, ctypes.c_size_t]),
    "nsdyn_data_channel_list": (ctypes.c_char_p, [P, ctypes.c_int]),
    "nsdyn_data_channel_index": (ctypes.c_long, [P, ctypes.c_char_p]),
    "nsdyn_data_samples": (
        ctypes.c_int, [P, ctypes.POINTER(c_double_p), ctypes.POINTER(ctypes.c_size_t)]),
    "nsdyn_data_summary": (ctypes.c_int, [P, ctypes.POINTER(Summary)]),
    "nsdyn_data_summary_line": (ctypes.c_char_p, [P]),
    "nsdyn_data_log": (ctypes.c_char_p, [P]),
    "nsdyn_data_event_count": (ctypes.c_size_t, [P]),
    "nsdyn_data_event": (ctypes.c_int, [P, ctypes.c_size_t, ctypes.POINTER(Event)]),
    "nsdyn_data_record": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_void_p)]),
    "nsdyn_data_start": (ctypes.c_int, [P]),
    "nsdyn_data_step": (ctypes.c_int, [P]),
    "nsdyn_data_run_until": (ctypes.c_int, [P, ctypes.c_double]),
    "nsdyn_data_run_to_event": (ctypes.c_int, [P, ctypes.POINTER(Event)]),
    "nsdyn_data_running": (ctypes.c_int, [P]),
    "nsdyn_data_time": (ctypes.c_int, [P, c_double_p]),
    "nsdyn_data_catch_sigint": (None, [P, ctypes.c_int]),
    "nsdyn_data_sweep": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.POINTER(Sweep)]),
    "nsdyn_data_continuation": (
        ctypes.c_int, [P, ctypes.POINTER(Periodic), ctypes.POINTER(Branch)]),
    "nsdyn_data_write": (ctypes.c_int, [P, ctypes.c_char_p]),
}
for _name, (_res, _args) in _sig.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

if lib.nsdyn_host_api_version() >> 16 != API_MAJOR or \
        lib.nsdyn_host_api_version() & 0xFFFF < API_MINOR:
    raise ImportError(
        f"nsdyn: libnsdyn_host {lib.nsdyn_host_version_string().decode()} has host API major "
        f"{lib.nsdyn_host_api_version() >> 16}.{lib.nsdyn_host_api_version() & 0xFFFF}, this "
        f"package needs {API_MAJOR}.{API_MINOR} or a later {API_MAJOR}.x"
    )

# status codes (host.h nsdyn_host_status)
OK, ERR_CONFIG, ERR_NOT_FOUND, ERR_ARGUMENT, ERR_RUN_FAILED, ERR_INTERRUPTED, ERR_NO_RUN, \
    ERR_IO, ERR_MEMORY, ENDED = range(10)
