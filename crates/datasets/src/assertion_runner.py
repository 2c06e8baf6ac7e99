# verdict's assertion runner (docs/datasets.md): runs a candidate and a dataset's assertion tests
# in one process inside the box. Passing is a marker line written at the very end, read from
# stdin before the candidate runs; everything else (exiting early, printing, rewriting the test
# files, returning an object whose == is always true) fails.
import os, sys, builtins, collections

_write, _exit, _type, _callable = os.write, os._exit, type, callable
_PLAIN = (bool, int, float, complex, str, bytes, type(None))
_SEQ = (list, tuple, set, frozenset)
# The standard library's dicts that datasets' references return (MBPP's Counter): taken by
# their exact classes, captured before the candidate runs, and handed to the tests as plain
# dicts (a dict compares as the dataset's own harness compares them).
_DICTS = (dict, collections.Counter, collections.OrderedDict, collections.defaultdict)


def _is(t, kinds):
    for k in kinds:
        if t is k:
            return True
    return False


def _plain(value, depth=0):
    """The value as plain data, or TypeError: the standard library's dicts become dicts."""
    t = _type(value)
    if _is(t, _PLAIN):
        return value
    if depth < 100 and _is(t, _SEQ):
        items = [_plain(item, depth + 1) for item in value]
        return items if t is list else t(items)
    if depth < 100 and _is(t, _DICTS):
        return {_plain(key, depth + 1): _plain(item, depth + 1)
                for key, item in dict.items(value)}
    raise TypeError("returned a %s, not a plain value (bool, int, float, complex, str, bytes, "
                    "None, or lists, tuples, sets and dicts of them)" % t.__name__)


def _guard(fn):
    def guarded(*args, **kwargs):
        return _plain(fn(*args, **kwargs))
    guarded.__name__ = getattr(fn, "__name__", "guarded")
    guarded.__wrapped__ = fn
    return guarded


def _fail(error):
    try:
        text = "%s\t%s" % (_type(error).__name__, str(error))
    except BaseException:
        text = "%s\t" % _type(error).__name__
    _write(2, ("\nverdict-eval-failed\t" + text.replace("\n", "\\n") + "\n").encode("utf-8", "replace"))
    _exit(1)


def _main():
    marker = sys.stdin.buffer.readline().rstrip(b"\n")
    with open("candidate.py", encoding="utf-8") as f:
        candidate = f.read()
    with open("tests.py", encoding="utf-8") as f:
        tests = f.read()
    with open("guarded.txt", encoding="utf-8") as f:
        guarded = f.read().split()
    out = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    pristine = dict(builtins.__dict__)
    scope = {"__name__": "__main__", "__builtins__": builtins}
    try:
        exec(compile(candidate, "candidate.py", "exec"), scope)
        builtins.__dict__.clear()
        builtins.__dict__.update(pristine)
        for name in guarded:
            fn = scope.get(name)
            if fn is not None and _callable(fn) and not _is(_type(fn), (type,)):
                scope[name] = _guard(fn)
        exec(compile(tests, "tests.py", "exec"), scope)
    except BaseException as error:
        _fail(error)
    _write(out, marker + b"\n")
    _exit(0)


_main()
