# The InterCode Studio Python driver: a persistent interpreter for one episode.
# Requests arrive on stdin as "<byte length>\n<JSON>"; after each, a frame goes to a private copy
# of stdout (and a mark to a private copy of stderr) so the host knows the request is finished.
# User code gets /dev/null as stdin; sys.stdout/sys.stderr/sys.stdin are put back before every
# request, so code that replaces them (or print) cannot break the driver.
import ast
import builtins
import inspect
import json
import linecache
import os
import sys
import traceback

NONCE = sys.argv[1].encode()
_IN = os.fdopen(os.dup(0), "rb", buffering=0)
_OUT = os.dup(1)
_ERR = os.dup(2)
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
sys.stdin = open(os.devnull)
_REAL = (sys.stdout, sys.stderr, sys.stdin)
_write = os.write
_ns = {"__name__": "__main__", "__builtins__": builtins}
_cell = 0


def _read_exact(n):
    chunks = []
    while n > 0:
        b = _IN.read(n)
        if not b:
            raise EOFError
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def _read_request():
    header = b""
    while not header.endswith(b"\n"):
        b = _IN.read(1)
        if not b:
            raise EOFError
        header += b
    return json.loads(_read_exact(int(header)).decode("utf-8"))


def _frame(obj):
    body = json.dumps(obj).encode()
    _write(_OUT, b"\0IC" + NONCE + b"F\0" + body + b"\0IC" + NONCE + b"Z\0")
    _write(_ERR, b"\0IC" + NONCE + b"E\0")


def _flush():
    for s in (sys.stdout, sys.stderr, _REAL[0], _REAL[1]):
        try:
            s.flush()
        except BaseException:
            pass


def _run(code):
    global _cell
    _cell += 1
    name = "<cell %d>" % _cell
    tree = ast.parse(code, name)
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
    exec(compile(tree, name, "exec"), _ns)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), name, "eval"), _ns)
        if value is not None:
            _ns["_"] = value
            _REAL[0].write(repr(value) + "\n")


def _report(exc):
    if isinstance(exc, SyntaxError):
        lines = traceback.format_exception_only(type(exc), exc)
    else:
        tb = exc.__traceback__
        # Drop the driver's own frames (it runs as `python -c`, file name "<string>").
        while tb is not None and tb.tb_frame.f_code.co_filename == "<string>":
            tb = tb.tb_next
        lines = ["Traceback (most recent call last):\n"] + traceback.format_tb(tb) + traceback.format_exception_only(type(exc), exc)
    _REAL[1].write("".join(lines))


class _TestTimeout(BaseException):
    pass


def _ic_exec(code, parse_first):
    """Runs `code` the way InterCode's Python executor did; returns the observation it logged."""
    import io
    import contextlib
    if parse_first:
        try:
            ast.parse(code)
        except BaseException as e:
            return "Error executing action: %s" % e, False
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(code, _ns)
    except BaseException as e:
        return str({"error": "Error: %s" % e}), False
    return str({"output": out.getvalue(), "error": err.getvalue()}), True


def _ic_score(req):
    """InterCode's scoring of a `def` turn: bind, run the tests here, then reset to gold."""
    import io
    import contextlib
    import signal

    def alarm(signum, frame):
        raise _TestTimeout()

    old = signal.signal(signal.SIGALRM, alarm)
    results = []
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                exec("%s = %s" % (req["target"], req["fn"]), _ns)
            except BaseException:
                pass
            for t in req["tests"]:
                try:
                    signal.setitimer(signal.ITIMER_REAL, float(req.get("perTestSeconds", 5)))
                    exec(t, _ns)
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    results.append({"outcome": "pass"})
                except AssertionError as e:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    results.append({"outcome": "fail", "detail": "AssertionError" + (": %s" % e if str(e) else "")})
                except _TestTimeout:
                    results.append({"outcome": "error", "detail": "timed out"})
                except BaseException as e:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    results.append({"outcome": "error", "detail": "%s: %s" % (type(e).__name__, str(e)[:200])})
            _ns.clear()
            _ns.update({"__name__": "__main__", "__builtins__": builtins})
            for cell in (req.get("setup") or "", req.get("gold") or ""):
                try:
                    exec(cell, _ns)
                except BaseException:
                    pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return results


def main():
    global _REAL
    while True:
        try:
            req = _read_request()
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        if _REAL[2].closed:
            # exit() and quit() close sys.stdin before raising SystemExit.
            _REAL = (_REAL[0], _REAL[1], open(os.devnull))
        sys.stdout, sys.stderr, sys.stdin = _REAL
        result = {"ok": True}
        try:
            if req.get("op") == "source":
                fn = _ns.get(req["name"])
                if fn is None:
                    result = {"ok": False, "error": "name %r is not defined" % req["name"]}
                elif not callable(fn):
                    result = {"ok": False, "error": "%r is not a function" % req["name"]}
                else:
                    try:
                        result = {"ok": True, "source": inspect.getsource(fn)}
                    except (OSError, TypeError):
                        result = {"ok": True, "source": ""}
            elif req.get("op") == "ic-exec":
                obs, ok = _ic_exec(req["code"], req.get("parseFirst", False))
                result = {"ok": ok, "observation": obs}
            elif req.get("op") == "ic-score":
                result = {"ok": True, "results": _ic_score(req)}
            else:
                _run(req["code"])
        except SystemExit as e:
            result = {"ok": False, "error": "SystemExit"}
            _REAL[1].write("SystemExit: %s\n" % ("" if e.code is None else e.code))
        except BaseException as e:
            result = {"ok": False, "error": type(e).__name__}
            try:
                _report(e)
            except BaseException:
                _REAL[1].write("%s\n" % type(e).__name__)
        finally:
            _flush()
        try:
            _frame(result)
        except KeyboardInterrupt:
            _frame(result)


main()
