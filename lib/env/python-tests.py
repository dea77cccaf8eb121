# Runs a task's hidden tests in a fresh interpreter and prints one JSON result on a private copy
# of stdout. Input (stdin, JSON): prelude (code cells run first, errors ignored), setup (the
# task's setup code), tests (assert lines), function (the name to test) and target (the name the
# tests call). Each test's outcome: pass, fail (AssertionError) or error (anything else).
import builtins
import json
import os
import signal
import sys

req = json.loads(sys.stdin.read())
_out = os.dup(1)
_null = os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.dup2(_null, 2)
sys.stdin = open(os.devnull)
PER_TEST = float(req.get("perTestSeconds", 5))


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


signal.signal(signal.SIGALRM, _alarm)
ns = {"__name__": "__main__", "__builtins__": builtins}
setup_error = None
for i, cell in enumerate(req.get("prelude", [])):
    try:
        signal.setitimer(signal.ITIMER_REAL, PER_TEST * 2)
        exec(compile(cell, "<cell %d>" % (i + 1), "exec"), ns)
    except BaseException as e:
        if i == len(req.get("prelude", [])) - 1 and req.get("strictPrelude"):
            setup_error = "%s: %s" % (type(e).__name__, e)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
try:
    signal.setitimer(signal.ITIMER_REAL, PER_TEST * 2)
    exec(compile(req.get("setup") or "", "<setup>", "exec"), ns)
except BaseException as e:
    setup_error = setup_error or "setup failed: %s: %s" % (type(e).__name__, e)
finally:
    signal.setitimer(signal.ITIMER_REAL, 0)

fn = req["function"]
target = req["target"]
missing = None
if fn not in ns or not callable(ns[fn]):
    missing = "function %r is not defined" % fn
elif fn != target:
    ns[target] = ns[fn]

results = []
for t in req["tests"]:
    if missing or setup_error:
        results.append({"outcome": "error", "detail": missing or setup_error})
        continue
    try:
        signal.setitimer(signal.ITIMER_REAL, PER_TEST)
        exec(compile(t, "<test>", "exec"), ns)
        signal.setitimer(signal.ITIMER_REAL, 0)
        results.append({"outcome": "pass"})
    except AssertionError as e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        results.append({"outcome": "fail", "detail": "AssertionError" + (": %s" % e if str(e) else "")})
    except _Timeout:
        results.append({"outcome": "error", "detail": "timed out after %g s" % PER_TEST})
    except BaseException as e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        results.append({"outcome": "error", "detail": "%s: %s" % (type(e).__name__, str(e)[:200])})
os.write(_out, ("\n\x1eICRESULT" + json.dumps({"results": results}) + "\n").encode())
