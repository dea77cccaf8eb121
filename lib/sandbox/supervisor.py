# The sandbox supervisor: one long-lived process per sandbox (PID 1 of its PID namespace) that
# starts commands, streams their output, kills them and reads/writes files, driven by JSON lines
# on stdin and answering with JSON lines on stdout. Both backends run it, so exec() costs a
# fork+exec instead of a bwrap start or a docker exec.
#
# Host -> supervisor: {"op": ..., "id": n, ...}; supervisor -> host: {"ev": ..., "id": n, ...}.
# Binary data travels base64-encoded in "d".
import base64, ctypes, errno, io, json, os, resource, selectors, signal, sys, tarfile, time

OUT = sys.stdout.buffer
IN_FD = sys.stdin.fileno()

# Not dumpable: code in the sandbox (same uid) can neither ptrace the supervisor nor open
# /proc/1/fd/* to forge protocol messages.
try:
    ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
except Exception:
    pass


PENDING = []  # encoded messages of this round of events, written together by flush()


def send(msg):
    PENDING.append(json.dumps(msg, separators=(",", ":")).encode() + b"\n")


def flush():
    # One write per round of events instead of one per message: a command's last output, the
    # shell's frame and its exit usually travel (and wake the host) together.
    if PENDING:
        OUT.write(b"".join(PENDING))
        del PENDING[:]
        OUT.flush()


def b64(data):
    return base64.b64encode(data).decode("ascii")


sel = selectors.DefaultSelector()
tasks = {}  # id -> Task
by_pid = {}  # pid -> Task


class Task:
    def __init__(self, tid, pid, fin, fout, ferr, cap):
        self.id, self.pid, self.cap = tid, pid, cap
        self.fin, self.fout, self.ferr = fin, fout, ferr
        self.sent = 0
        self.trunc = False
        self.status = None  # (code, sig) once reaped
        self.pending = b""  # stdin bytes not written yet
        self.close_in = False

    def emit(self, stream, data):
        if self.cap is not None:
            room = self.cap - self.sent
            if room <= 0:
                self.trunc = True
                return
            if len(data) > room:
                data, self.trunc = data[:room], True
        self.sent += len(data)
        send({"ev": "out", "id": self.id, "s": stream, "d": b64(data)})


def set_nonblock(fd):
    os.set_blocking(fd, False)


RLIMITS = (("as", resource.RLIMIT_AS), ("fsize", resource.RLIMIT_FSIZE), ("nproc", resource.RLIMIT_NPROC))
RESET_SIGNALS = (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP, signal.SIGQUIT)


def set_oom(value):
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(value)
    except OSError:
        pass


def spawn_child(msg, fin_r, out_w, err_w):
    # posix_spawn (vfork) is several times cheaper than fork here. What it cannot set for the
    # child (working directory, limits, OOM score) the supervisor sets on itself around the call and
    # restores: the child inherits them. Limits are soft (the cgroup / container is the hard cap).
    lim = msg.get("limits") or {}
    saved = []
    cwd = os.getcwd()
    set_oom("1000")  # the OOM killer takes sandboxed code first, never the supervisor
    try:
        for name, res in RLIMITS:
            if lim.get(name):
                old = resource.getrlimit(res)
                saved.append((res, old))
                hard = old[1]
                resource.setrlimit(res, (lim[name] if hard == resource.RLIM_INFINITY else min(lim[name], hard), hard))
        os.chdir(msg.get("cwd") or "/")
        return os.posix_spawnp(
            msg["argv"][0], msg["argv"], msg.get("env") or {},
            file_actions=[(os.POSIX_SPAWN_DUP2, fin_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)],
            setsid=True, setsigmask=(), setsigdef=RESET_SIGNALS,
        )
    finally:
        os.chdir(cwd)
        for res, old in saved:
            resource.setrlimit(res, old)
        set_oom("0")


def start(msg):
    tid = msg["id"]
    fin_r, fin_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    failure = None
    try:
        pid = spawn_child(msg, fin_r, out_w, err_w)
    except OSError as e:
        pid, failure = None, e
    for fd in (fin_r, out_w, err_w):
        os.close(fd)
    if pid is None:
        for fd in (fin_w, out_r, err_r):
            os.close(fd)
        if isinstance(failure, (FileNotFoundError, PermissionError, NotADirectoryError)):
            # what a shell would say: the command or its directory is missing
            send({"ev": "started", "id": tid})
            send({"ev": "out", "id": tid, "s": 2, "d": b64(("%s: %s\n" % (failure.filename or msg["argv"][0], failure.strerror)).encode())})
            send({"ev": "exit", "id": tid, "code": 127 if isinstance(failure, FileNotFoundError) else 126, "sig": None, "trunc": False})
            return
        raise failure
    for fd in (fin_w, out_r, err_r):
        set_nonblock(fd)
    t = Task(tid, pid, fin_w, out_r, err_r, msg.get("cap"))
    tasks[tid] = t
    by_pid[pid] = t
    sel.register(out_r, selectors.EVENT_READ, ("out", t, 1))
    sel.register(err_r, selectors.EVENT_READ, ("out", t, 2))
    send({"ev": "started", "id": tid})
    if msg.get("input"):
        t.pending = base64.b64decode(msg["input"])
    if not msg.get("keep"):
        t.close_in = True
    flush_stdin(t)


def flush_stdin(t):
    if t.fin is None:
        return
    try:
        while t.pending:
            n = os.write(t.fin, t.pending)
            t.pending = t.pending[n:]
    except BlockingIOError:
        pass
    except OSError:  # the reader is gone (EPIPE): drop what is left
        t.pending = b""
    want = bool(t.pending)
    key = sel.get_map().get(t.fin)
    if want and key is None:
        sel.register(t.fin, selectors.EVENT_WRITE, ("in", t, 0))
    elif not want and key is not None:
        sel.unregister(t.fin)
    if not t.pending and t.close_in:
        os.close(t.fin)
        t.fin = None


def read_stream(t, stream, fd):
    try:
        data = os.read(fd, 65536)
    except BlockingIOError:
        return
    except OSError:
        data = b""
    if data:
        t.emit(stream, data)
    else:
        sel.unregister(fd)
        os.close(fd)
        if stream == 1:
            t.fout = None
        else:
            t.ferr = None
        maybe_finish(t)


def drain(t):
    # The process is gone: take what it left in the pipes, then stop listening (a background
    # child that still holds the pipe does not keep the call open).
    for stream in (1, 2):
        fd = t.fout if stream == 1 else t.ferr
        if fd is None:
            continue
        while True:
            try:
                data = os.read(fd, 65536)
            except (BlockingIOError, OSError):
                break
            if not data:
                break
            t.emit(stream, data)
        sel.unregister(fd)
        os.close(fd)
    t.fout = t.ferr = None


def maybe_finish(t):
    if t.status is None or tasks.get(t.id) is not t:
        return
    drain(t)
    if t.fin is not None:
        if sel.get_map().get(t.fin) is not None:
            sel.unregister(t.fin)
        os.close(t.fin)
        t.fin = None
    del tasks[t.id]
    code, sig = t.status
    send({"ev": "exit", "id": t.id, "code": code, "sig": sig, "trunc": t.trunc})


def reap():
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        t = by_pid.pop(pid, None)
        if t is None:
            continue  # an orphan re-parented to us (we are PID 1): just reaped
        if os.WIFSIGNALED(status):
            t.status = (None, os.WTERMSIG(status))
        else:
            t.status = (os.WEXITSTATUS(status), None)
        maybe_finish(t)


def proc_pids():
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            out.append(int(name))
    return out


def ppid_of(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read()
        return int(stat[stat.rindex(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def descendants(root):
    children = {}
    for pid in proc_pids():
        pp = ppid_of(pid)
        if pp is not None:
            children.setdefault(pp, []).append(pid)
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def kill_task(t, sig):
    # Freeze the tree first so a fork bomb cannot outrun the kill, then kill it.
    for _ in range(3):
        targets = [t.pid] + descendants(t.pid)
        for s in ((signal.SIGSTOP, sig) if sig == signal.SIGKILL else (sig,)):
            try:
                os.killpg(t.pid, s)
            except OSError:
                pass
            for p in targets:
                try:
                    os.kill(p, s)
                except OSError:
                    pass
        if sig != signal.SIGKILL:
            return


def state_of(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3]
    except (OSError, ValueError):
        return b"?"


def kill_strays(keep_ids):
    me = os.getpid()
    keep = {me, 1}
    for tid in keep_ids:
        t = tasks.get(tid)
        if t is not None:
            keep.add(t.pid)
    # Freeze and kill until nothing but the kept ones is left alive (dying processes take a
    # moment to go; a fork bomb keeps making new ones until its members are all stopped).
    deadline = time.monotonic() + 5
    while True:
        victims = [p for p in proc_pids() if p not in keep and state_of(p) not in (b"Z", b"?")]
        reap()
        if not victims or time.monotonic() > deadline:
            return
        for s in (signal.SIGSTOP, signal.SIGKILL):
            for p in victims:
                try:
                    os.kill(p, s)
                except OSError:
                    pass
        time.sleep(0.005)


def file_op(msg):
    op, path = msg["op"], msg["path"]
    try:
        if op == "read":
            with open(path, "rb") as f:
                return {"d": b64(f.read())}
        if op == "write_file":
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(path, "wb") as f:
                f.write(base64.b64decode(msg["d"]))
            return {}
        if op == "untar":
            os.makedirs(path, exist_ok=True)
            with tarfile.open(fileobj=io.BytesIO(base64.b64decode(msg["d"]))) as tf:
                tf.extractall(path, numeric_owner=True)
                # tarfile gives every entry its modification time as its access time too, and leaves
                # a symbolic link with the time of its making; give each its own two times (find
                # -newer, -amin; archives of a directory holding a link), as cp -a does. POSIX
                # archives carry the access time.
                for m in tf.getmembers():
                    atime = float(m.pax_headers.get("atime", m.mtime))
                    os.utime(os.path.join(path, m.name), (atime, m.mtime), follow_symlinks=False)
            return {}
    except OSError as e:
        return {"err": errno.errorcode.get(e.errno, "EIO"), "msg": "%s: %s" % (path, e.strerror)}
    except Exception as e:
        return {"err": "EIO", "msg": "%s: %s" % (path, e)}


MS_RDONLY, MS_NOSUID, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 1, 2, 32, 4096, 8192, 16384, 1 << 18
# Top-level system entries laid read-only over a new root (symlinks on merged-/usr images are
# copied as links), and the scratch directories made on it, as the local backend lays them out.
ROOT_SYSTEM = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc")
ROOT_SCRATCH = (("tmp", 0o1777), ("var/tmp", 0o1777), ("root", 0o700), ("run", 0o755))


def mount(src, dst, fstype, flags, data=None):
    libc = ctypes.CDLL(None, use_errno=True)
    enc = lambda v: None if v is None else v.encode()
    if libc.mount(enc(src), enc(dst), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s on %s: %s" % (src, dst, os.strerror(e)))


def drop_capabilities():
    # Empties the bounding, ambient, effective, permitted and inheritable sets: neither the
    # agent nor anything it starts (root or not, setuid or not) can hold a capability again.
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(64):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP (EINVAL past the last capability)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "capset: %s" % os.strerror(e))
    with open("/proc/self/status") as f:
        caps = dict(l.split(":\t", 1) for l in f.read().splitlines() if l.startswith("Cap"))
    held = [k for k, v in caps.items() if int(v.strip(), 16) != 0]
    if held:
        raise OSError(errno.EPERM, "capabilities still held after dropping them: " + ", ".join(held))


def pivot(new_root):
    # Makes new_root (a size-capped tmpfs already holding the task's files) the root: the system
    # directories are bound read-only over it, /proc and /dev come along, and the old root (the
    # engine's uncapped writable layer) ends up hidden beneath it. Then every capability goes.
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    for name in ROOT_SYSTEM:
        src, dst = "/" + name, os.path.join(new_root, name)
        if os.path.islink(src):
            if os.path.lexists(dst):
                if os.path.isdir(dst) and not os.path.islink(dst):
                    raise OSError(errno.EEXIST, "%s: the task's files hold a directory where the system has a link" % dst)
                os.unlink(dst)
            os.symlink(os.readlink(src), dst)
        elif os.path.isdir(src):
            os.makedirs(dst, exist_ok=True)
            mount(src, dst, None, MS_BIND | MS_REC)
            mount(None, dst, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
    for name in ("proc", "dev"):
        dst = os.path.join(new_root, name)
        os.makedirs(dst, exist_ok=True)
        mount("/" + name, dst, None, MS_BIND | MS_REC)
    for name, mode in ROOT_SCRATCH:
        dst = os.path.join(new_root, name)
        if not os.path.isdir(dst):
            os.makedirs(dst, exist_ok=True)
            os.chmod(dst, mode)
    # pivot_root is outside the engine's seccomp profile, so switch the way an initramfs does:
    # move the new root over "/" and chroot into it. The old root lies underneath, out of reach
    # of any path, and with the capabilities gone nothing can chroot out again.
    os.chdir(new_root)
    mount(new_root, "/", None, MS_MOVE)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.chroot(b".") != 0:
        e = ctypes.get_errno()
        raise OSError(e, "chroot: %s" % os.strerror(e))
    os.chdir("/")
    drop_capabilities()


def handle(msg):
    op, tid = msg.get("op"), msg.get("id")
    if op == "run":
        try:
            start(msg)
        except OSError as e:
            send({"ev": "err", "id": tid, "err": "ESPAWN", "msg": str(e)})
    elif op == "write":
        t = tasks.get(tid)
        if t is not None and t.fin is not None:
            t.pending += base64.b64decode(msg["d"])
            flush_stdin(t)
    elif op == "eof":
        t = tasks.get(tid)
        if t is not None and t.fin is not None:
            t.close_in = True
            flush_stdin(t)
    elif op == "kill":
        t = tasks.get(tid)
        if t is not None and t.status is None:
            kill_task(t, msg.get("sig") or signal.SIGKILL)
    elif op == "strays":
        kill_strays(msg.get("keep") or [])
        send({"ev": "ok", "id": tid})
    elif op in ("read", "write_file", "untar"):
        res = file_op(msg)
        res.update({"ev": "err" if "err" in res else "ok", "id": tid})
        send(res)
    elif op == "ping":
        send({"ev": "ok", "id": tid})
    elif op == "pivot":
        try:
            pivot(msg["path"])
            send({"ev": "ok", "id": tid})
        except Exception as e:
            send({"ev": "err", "id": tid, "err": "EPIVOT", "msg": str(e)})


def main():
    rfd, wfd = os.pipe()
    set_nonblock(rfd)
    set_nonblock(wfd)
    signal.set_wakeup_fd(wfd)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    set_nonblock(IN_FD)
    sel.register(IN_FD, selectors.EVENT_READ, ("ctl", None, 0))
    sel.register(rfd, selectors.EVENT_READ, ("sig", None, 0))
    buf = b""
    send({"ev": "ready", "pid": os.getpid()})
    while True:
        flush()
        for key, mask in sel.select():
            current = sel.get_map().get(key.fd)
            if current is None or current.data is not key.data:
                continue  # closed (or its fd reused) while handling an earlier event of this batch
            kind, t, stream = key.data
            if kind == "ctl":
                try:
                    data = os.read(IN_FD, 1 << 20)
                except BlockingIOError:
                    continue
                if not data:
                    return  # the host is gone: PID 1 exits and the kernel kills the rest
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        handle(json.loads(line))
            elif kind == "sig":
                try:
                    while os.read(rfd, 4096):
                        pass
                except BlockingIOError:
                    pass
                reap()
            elif kind == "out":
                read_stream(t, stream, key.fd)
            elif kind == "in":
                flush_stdin(t)


main()
