"""verdict's Task Oracle harness for python3 function deliverables.

Usage: function.py CASES RESULTS MODULE FUNCTION START END TIMEOUT_MS [stop|all]

CASES is a JSON array of positional-argument lists. For each case k, START <= k < END, the harness
calls FUNCTION(*args) and appends one JSON line to RESULTS, a file it opens before importing
the deliverable, so nothing the deliverable prints on stdout or stderr can corrupt the results.
Records: {"loaded": {"required": n, "max": m|null}} | {"load_error": msg} |
{"i": k, "ok": value, "ms": t} | {"i": k, "error": msg, "ms": t} | {"i": k, "timeout": true, "ms": t} |
{"i": k, "arity": n} | {"done": true}.
A case runs under SIGALRM; if the alarm does not end it (swallowed, or C code holding the GIL),
faulthandler's watchdog ends the process after a grace period, writing into RESULTS.timeout.
With "stop", the harness runs no case after one that timed out (the judge stops there anyway).
"""

import _signal
import faulthandler
import fcntl
import os
import sys
import time

# Start-up is the harness's main cost per suite: it imports no module that the interpreter has
# not already loaded at start (no json, re, enum, signal, importlib.util, inspect on the plain
# path); see docs/oracle.md, "Start-up".


HARNESS = os.path.abspath(__file__)


class CaseTimeout(BaseException):
    """Raised by SIGALRM when a case runs out of time (BaseException: `except Exception` won't catch it)."""


def main():
    cases_path, results_path, module_path, func_name, start, end, timeout_ms = sys.argv[1:8]
    stop_at_timeout = sys.argv[8:9] == ["stop"]
    start, end, timeout = int(start), int(end), int(timeout_ms) / 1000.0
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    fd = os.open(results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:  # away from the low descriptors a deliverable may close or reuse
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)
        os.close(fd)
    except OSError:
        high = fd
    out = os.fdopen(high, "w", encoding="utf-8")
    # faulthandler's watchdog is a C thread that needs no GIL: it ends the process even when a
    # case holds the GIL in C code or swallows the alarm; it writes a traceback into this file.
    hard = os.fdopen(fcntl.fcntl(out.fileno(), fcntl.F_DUPFD_CLOEXEC, 100), "w")
    hard_fd = os.open(results_path + ".timeout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(hard_fd, hard.fileno())
    os.close(hard_fd)

    loads, dumps = json_codec()

    def emit(record):
        out.write(dumps(record) + "\n")
        out.flush()

    with open(cases_path, encoding="utf-8") as f:
        cases = loads(f.read())

    # A case gets at least `window` before the hard stop and is stopped within 2 x `window`;
    # the watchdog is re-armed only when that would not hold (re-arming costs a thread).
    window = timeout + max(1.0, timeout / 2)
    armed_until = [0.0]

    def arm():
        now = time.monotonic()
        if not now + window <= armed_until[0] <= now + 2 * window:
            faulthandler.dump_traceback_later(1.5 * window, exit=True, file=hard)
            armed_until[0] = now + 1.5 * window
        _signal.setitimer(_signal.ITIMER_REAL, timeout)
        return time.perf_counter()

    def disarm():
        _signal.setitimer(_signal.ITIMER_REAL, 0)

    def on_alarm(signum, frame):
        raise CaseTimeout()

    _signal.signal(_signal.SIGALRM, on_alarm)

    module_dir = os.path.dirname(os.path.abspath(module_path))
    sys.path.insert(0, module_dir)
    name = os.path.splitext(os.path.basename(module_path))[0]
    try:
        spec, module = module_for(name, module_path)
        sys.modules[name] = module
        arm()
        try:
            spec.loader.exec_module(module)
        finally:
            disarm()
    except CaseTimeout:
        emit({"load_error": "loading the module ran out of time"})
        return
    except BaseException as e:  # noqa: BLE001 - the deliverable may raise anything
        emit({"load_error": "loading the module raised " + describe(e, module_dir)})
        return
    fn = getattr(module, func_name, None)
    if not callable(fn):
        emit({"load_error": "%s defines no function %s" % (os.path.basename(module_path), func_name)})
        return
    required, most = positional_bounds(fn)
    emit({"loaded": {"required": required, "max": most}})

    for k in range(start, min(end, len(cases))):
        args = cases[k]
        if len(args) < required or (most is not None and len(args) > most):
            emit({"i": k, "arity": len(args)})
            continue
        t0 = arm()
        try:
            try:
                got = fn(*args)
            finally:
                disarm()
            ms = (time.perf_counter() - t0) * 1000
            try:
                emit({"i": k, "ok": got, "ms": ms})
            except (TypeError, ValueError, OverflowError, RecursionError) as e:
                emit({"i": k, "error": "return value is not JSON: %s" % e, "ms": ms})
        except CaseTimeout:
            emit({"i": k, "timeout": True, "ms": (time.perf_counter() - t0) * 1000})
            if stop_at_timeout:  # the judge stops at the first failure: no case after this runs
                break
        except BaseException as e:  # noqa: BLE001
            emit({"i": k, "error": describe(e, module_dir), "ms": (time.perf_counter() - t0) * 1000})
    # The watchdog is left armed: the process ends with os._exit right after this record (which
    # the oracle reads before the .timeout file), and cancelling would wait for its thread.
    emit({"done": True})


def module_for(name, path):
    """(spec, module) for the deliverable, as importlib.util's spec_from_file_location and
    module_from_spec make them: the same functions, taken from the import system's own frozen
    modules, which the interpreter loaded at start (importlib.util would import contextlib,
    collections and functools). The module gets the same __spec__, __loader__ (a
    SourceFileLoader), __file__, __cached__ and __package__ as before."""
    bootstrap = sys.modules.get("_frozen_importlib")
    external = sys.modules.get("_frozen_importlib_external")
    if bootstrap is None or external is None:
        import importlib.util as bootstrap

        external = bootstrap
    spec = external.spec_from_file_location(name, path)
    return spec, bootstrap.module_from_spec(spec)


def json_codec():
    """(loads, dumps) with exactly json.loads' and json.dumps(record, ensure_ascii=False,
    allow_nan=False)'s results and errors: on CPython 3.8-3.13 (whose json modules were checked
    to call the C accelerator this way) straight over `_json`, which imports nothing (`json`
    imports re and enum: a third of the harness's start-up); elsewhere through `json`."""
    try:
        if not (3, 8) <= sys.version_info[:2] <= (3, 13) or sys.implementation.name != "cpython":
            raise ImportError("unchecked json module")
        import _json

        class Context:
            # What json.JSONDecoder() gives make_scanner (its other attributes are the pure
            # Python scanner's).
            strict = True
            object_hook = None
            object_pairs_hook = None
            parse_float = float
            parse_int = int
            parse_constant = {
                "-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan"),
            }.__getitem__

        def not_serializable(o):  # json.JSONEncoder.default
            raise TypeError("Object of type %s is not JSON serializable" % o.__class__.__name__)

        scan = _json.make_scanner(Context())
        markers = {}  # json.dumps' check_circular; emptied per record (a failed one leaves ids)
        encode = _json.make_encoder(
            markers, not_serializable, _json.encode_basestring, None, ": ", ", ",
            False, False, False)
    except (ImportError, AttributeError, TypeError):
        import json

        encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False)

        def dumps_json(record):  # json.dumps(record, ...) is this, in as many frames
            return encoder.encode(record)

        return json.loads, dumps_json

    def skip_space(s, i):  # json.decoder.WHITESPACE
        n = len(s)
        while i < n and s[i] in " \t\n\r":
            i += 1
        return i

    def loads(s):
        try:
            if not s.startswith("\ufeff"):
                value, end = scan(s, skip_space(s, 0))
                if skip_space(s, end) == len(s):
                    return value
        except (StopIteration, ValueError):
            pass
        import json  # the document is not JSON: json says how, in its words

        return json.loads(s)

    # Three frames, as json.dumps -> JSONEncoder.encode -> iterencode: under 3.11 and older the
    # C encoder's recursion check counts them, so a deep value fails at the same depth.
    def dumps(record):
        return joined(record)

    def joined(record):
        return "".join(chunks(record))

    def chunks(record):
        markers.clear()
        return encode(record, 0)

    return loads, dumps


def positional_bounds(fn):
    """(required, max) positional parameters; max None with *args or an unreadable signature."""
    code = getattr(fn, "__code__", None)
    if (type(fn).__name__ == "function" and code is not None
            and not hasattr(fn, "__wrapped__") and not hasattr(fn, "__signature__")):
        # A plain function: its code object says what inspect.signature would, without
        # importing inspect (a quarter of the interpreter's start-up).
        required = code.co_argcount - len(fn.__defaults__ or ())
        return required, None if code.co_flags & 0x04 else code.co_argcount  # CO_VARARGS
    import inspect  # decorated functions, builtins, classes, partials: the full signature

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return 0, None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is p.empty)
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return required, None
    return required, len(positional)


def describe(e, module_dir):
    """`Type: message (at file.py:line in function)`, the location being the deepest deliverable frame."""
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    where = None
    tb = e.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if os.path.dirname(os.path.abspath(path)) == module_dir and os.path.abspath(path) != HARNESS:
            where = "%s:%d in %s" % (os.path.basename(path), tb.tb_lineno, tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return "%s (at %s)" % (text, where) if where else text


if __name__ == "__main__":
    status = 0
    try:
        main()
    except BaseException:  # noqa: BLE001 - a harness failure: report it on stderr
        import traceback

        traceback.print_exc()
        status = 70
    finally:
        # Never wait for threads the deliverable left running.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(status)
