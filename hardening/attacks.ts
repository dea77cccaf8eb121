import type { StepResult } from "@/lib/env/types";

/** The environments an attack can be written for. */
export type AttackEnv = "bash" | "python" | "ctf" | "sql";

/** What the runner knows about the host, for writing attacks and judging their outcome. */
export interface AttackContext {
  /** A real HTTP server on the host (all interfaces), answering `httpToken`. */
  port: number;
  httpToken: string;
  /** Every IPv4 address of the host (loopback first), for network attacks. */
  hostAddrs: string[];
  /** A fake API key set in the test process's environment. */
  secret: string;
  /** A host file the attacks try to read and change; its content holds `canaryToken`. */
  canaryFile: string;
  canaryToken: string;
  /** A host directory no file may appear in. */
  canaryDir: string;
  /** A fake project database (SQLite) under the repo's var/, holding `dbToken`. */
  projectDb: string;
  dbToken: string;
  repoRoot: string;
  /** Pid of the test process (the "server") on the host. */
  hostPid: number;
  /** A unique word: files named after it must never appear on the host, processes never survive. */
  marker: string;
  /** A number unique to the run, used as `sleep <n>` so left-behind processes can be found. */
  sleepMark: number;
  /** A table of the SQL task's database and its row count. */
  sqlTable: string;
  sqlRows: number;
  timeoutMs: number;
  outputBytes: number;
  diskBytes: number;
}

/** A step's outcome as the runner saw it: the result or what it threw, and how long it took. */
export interface AttackOutcome {
  result?: StepResult;
  error?: Error;
  ms: number;
}

/** One hostile action with the outcome it must have. */
export interface Attack {
  id: string;
  /** What it tries, in words. */
  what: string;
  /** The action for each environment it applies to. */
  actions: Partial<Record<AttackEnv, (c: AttackContext) => string>>;
  /** Returns null when the outcome is the expected one, else what went wrong. */
  expect?: (o: AttackOutcome, c: AttackContext) => string | null;
  /**
   * The sandbox itself may break (the action killed its supervisor): the step may throw a StudioError
   * with a message instead of answering. The next episode must still work.
   */
  mayBreakSandbox?: boolean;
  /**
   * Runs in an episode of its own (it breaks or fills its sandbox, or changes state the next
   * episode checks). The others run one after another in a shared episode, checked one by one.
   */
  ownEpisode?: boolean;
  /** An action run right after, in the same episode, to measure what the attack achieved. */
  probe?: { actions: Partial<Record<AttackEnv, (c: AttackContext) => string>>; expect: (obs: string, c: AttackContext) => string | null };
  /** An action run in the NEXT episode, and the output it must give (default `echo ok` → ok). */
  next?: { actions: Partial<Record<AttackEnv, (c: AttackContext) => string>>; expect: (obs: string, c: AttackContext) => string | null };
}

const obs = (o: AttackOutcome) => o.result?.observation ?? "";

/** The action must have been stopped at the time limit. */
const timedOut = (o: AttackOutcome, c: AttackContext): string | null => {
  if (o.error) return null; // mayBreakSandbox attacks only; the runner checks that
  if (
    !o.result?.timedOut &&
    !/timed out|time limit|killed|Killed|Resource temporarily unavailable|fork|MemoryError|Cannot allocate|out of memory/i.test(obs(o))
  ) {
    return `not cut off (timedOut=${o.result?.timedOut}): ${obs(o).slice(0, 120)}`;
  }
  if (o.ms > c.timeoutMs + 15_000) return `took ${o.ms} ms for a ${c.timeoutMs} ms limit`;
  return null;
};
const failed =
  (re?: RegExp) =>
  (o: AttackOutcome): string | null => {
    if (o.error) return null;
    if (o.result?.ok && !re?.test(obs(o))) return `action succeeded: ${obs(o).slice(0, 160)}`;
    if (re && !re.test(obs(o))) return `observation does not say why (${re}): ${obs(o).slice(0, 160)}`;
    return null;
  };
const not =
  (re: RegExp) =>
  (o: AttackOutcome): string | null =>
    re.test(obs(o)) ? `observation matches ${re}: ${obs(o).slice(0, 160)}` : null;
const all =
  (...fs: ((o: AttackOutcome, c: AttackContext) => string | null)[]) =>
  (o: AttackOutcome, c: AttackContext) => {
    for (const f of fs) {
      const r = f(o, c);
      if (r) return r;
    }
    return null;
  };

/** Shell actions (bash and ctf run a shell; python gets the python form where given). */
const sh = (bash: (c: AttackContext) => string, python?: (c: AttackContext) => string): Attack["actions"] => ({
  bash,
  ctf: bash,
  ...(python ? { python } : {}),
});

/**
 * The attack corpus. Every attack also gets the runner's common checks: no secret, canary,
 * database or HTTP token in the observation; no request reached the HTTP server; the canary file
 * and directory unchanged; no host file or process named after the marker; the observation
 * bounded by the output cap; the next episode works.
 */
export const ATTACKS: Attack[] = [
  // ---------- reading host files ----------
  {
    id: "read-project-db",
    what: "read the project's database under var/",
    actions: sh(
      (c) => `cat ${c.projectDb} | head -c 4000; ls -la ${c.repoRoot}/var`,
      (c) => `print(open(${JSON.stringify(c.projectDb)}, 'rb').read(4000))`,
    ),
    expect: failed(),
  },
  {
    id: "find-any-db",
    what: "search the whole file system for .db files and grep them for the token",
    actions: sh((c) => `find / -xdev -name '*.db' 2>/dev/null | head -50 | xargs -r grep -l ${c.dbToken} 2>/dev/null; echo done`),
  },
  {
    id: "read-shadow",
    what: "read /etc/shadow",
    actions: sh(
      () => `cat /etc/shadow`,
      () => `print(open('/etc/shadow').read())`,
    ),
    expect: (o) => (/^root:[^*!:][^:]*:/m.test(obs(o)) ? "a password hash was read" : null),
  },
  {
    id: "proc-1-environ",
    what: "read PID 1's environment",
    actions: sh(
      () => `tr '\\0' '\\n' < /proc/1/environ`,
      () => `print(open('/proc/1/environ','rb').read())`,
    ),
  },
  {
    id: "host-pid-environ",
    what: "read the server process's environment by its host pid",
    actions: sh((c) => `tr '\\0' '\\n' < /proc/${c.hostPid}/environ; cat /proc/${c.hostPid}/cmdline`),
  },
  {
    id: "all-proc-environ",
    what: "read the environment of every visible process",
    actions: sh(
      () => `for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null; echo done`,
      () => `import glob\nfor f in glob.glob('/proc/[0-9]*/environ'):\n    try: print(open(f,'rb').read())\n    except Exception as e: pass`,
    ),
  },
  {
    id: "own-environment",
    what: "dump its own environment",
    actions: sh(
      () => `env; set | head -200`,
      () => `import os\nprint(dict(os.environ))`,
    ),
  },
  {
    id: "host-root-via-proc",
    what: "read the canary through another process's root (/proc/<pid>/root)",
    actions: sh((c) => `cat /proc/${c.hostPid}/root${c.canaryFile} /proc/1/root${c.canaryFile} 2>&1; ls /proc/*/root${c.canaryDir} 2>&1 | head`),
  },
  {
    id: "read-canary",
    what: "read a host file by its absolute path",
    actions: sh(
      (c) => `cat ${c.canaryFile}`,
      (c) => `print(open(${JSON.stringify(c.canaryFile)}).read())`,
    ),
    expect: failed(),
  },
  {
    id: "read-repo",
    what: "read the project's source and .env",
    actions: sh((c) => `cat ${c.repoRoot}/package.json ${c.repoRoot}/.env 2>&1 | head -20`),
    expect: not(/intercode-studio/),
  },
  // ---------- writing outside the workspace ----------
  {
    id: "append-canary",
    what: "append to a host file",
    actions: sh(
      (c) => `echo pwned >> ${c.canaryFile}`,
      (c) => `open(${JSON.stringify(c.canaryFile)}, 'a').write('pwned')`,
    ),
    expect: failed(),
  },
  {
    id: "create-in-host-dir",
    what: "create a file in a host directory",
    actions: sh(
      (c) => `touch ${c.canaryDir}/pwned && echo created`,
      (c) => `open(${JSON.stringify(c.canaryDir + "/pwned")}, 'w').write('x')`,
    ),
    expect: failed(),
  },
  {
    id: "write-host-tmp",
    what: "write /tmp/<marker> (the host's /tmp must not see it)",
    actions: sh(
      (c) => `echo x > /tmp/${c.marker} && ls -la /tmp/${c.marker}`,
      (c) => `open('/tmp/${c.marker}', 'w').write('x')`,
    ),
  },
  {
    id: "write-repo-var",
    what: "write into the repo's var/ directory",
    actions: sh((c) => `mkdir -p ${c.repoRoot}/var && echo x > ${c.repoRoot}/var/${c.marker}`),
  },
  {
    id: "symlink-escape",
    what: "write through a symlink to a host directory",
    actions: sh(
      (c) => `ln -sf ${c.canaryDir} /tmp/l-${c.marker}; echo x > /tmp/l-${c.marker}/pwned; ln -sf ${c.canaryFile} ./c-${c.marker}; echo x >> ./c-${c.marker}`,
    ),
  },
  {
    ownEpisode: true,
    id: "system-dir-persist",
    what: "write into system directories; the next episode must not see it",
    actions: sh(
      (c) => `mount -o remount,rw / 2>&1; mount -t tmpfs none /mnt 2>&1; echo x > /usr/bin/${c.marker}; echo x > /etc/${c.marker}; echo x > /${c.marker}; true`,
    ),
    next: {
      actions: { bash: (c) => `ls /usr/bin /etc / | grep -c ${c.marker} || true`, ctf: (c) => `ls /usr/bin /etc / | grep -c ${c.marker} || true` },
      expect: (o) => (o.trim() === "0" ? null : `the next episode sees the files: ${o.slice(0, 100)}`),
    },
  },
  // ---------- network ----------
  {
    id: "loopback-devtcp",
    what: "reach the host's HTTP server on 127.0.0.1 with bash /dev/tcp",
    actions: {
      bash: (c) => `exec 3<>/dev/tcp/127.0.0.1/${c.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
      ctf: (c) => `exec 3<>/dev/tcp/127.0.0.1/${c.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
    },
    expect: failed(),
  },
  {
    id: "loopback-curl",
    what: "reach the host's HTTP server with curl/wget",
    actions: sh((c) => `curl -s -m 3 http://127.0.0.1:${c.port}/ || wget -q -T 3 -O - http://127.0.0.1:${c.port}/ || echo unreachable`),
  },
  {
    id: "loopback-python",
    what: "reach the host's HTTP server from python",
    actions: { python: (c) => `import urllib.request\nprint(urllib.request.urlopen('http://127.0.0.1:${c.port}/', timeout=3).read())` },
    expect: failed(),
  },
  {
    id: "host-addresses",
    what: "reach the host's HTTP server on every host address (bridge, LAN)",
    actions: sh(
      (c) =>
        c.hostAddrs.map((a) => `timeout 2 bash -c 'exec 3<>/dev/tcp/${a}/${c.port} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && cat <&3'`).join("; ") +
        "; echo tried",
    ),
  },
  {
    id: "external-ip",
    what: "connect to an external IP",
    actions: sh(
      () =>
        `timeout 3 bash -c 'exec 3<>/dev/tcp/1.1.1.1/80' && echo CONNECTED-OUT; timeout 3 bash -c 'exec 3<>/dev/tcp/8.8.8.8/53' && echo CONNECTED-OUT; echo tried`,
      () => `import socket\ns = socket.create_connection(('1.1.1.1', 80), 3)\nprint('CONNECTED' + '-OUT')`,
    ),
    expect: not(/CONNECTED-OUT/),
  },
  {
    id: "dns",
    what: "resolve a public name",
    actions: sh(
      () => `timeout 3 getent hosts registry.npmjs.org && echo RESOLVED; echo tried`,
      () => `import socket\naddr = socket.gethostbyname('registry.npmjs.org')\nprint('RESOL' + 'VED', addr)`,
    ),
    expect: not(/RESOLVED/),
  },
  // ---------- resources ----------
  {
    ownEpisode: true,
    id: "fork-bomb",
    what: "a fork bomb",
    actions: sh(
      () => `:(){ :|:& };:`,
      () => `import os\nwhile True:\n    os.fork()`,
    ),
    mayBreakSandbox: true,
  },
  {
    ownEpisode: true,
    id: "memory-bomb",
    what: "allocate far more memory than the cap at once",
    actions: sh(
      () => `x=$(head -c 3000000000 /dev/zero | tr '\\0' a); echo \${#x}`,
      () => `a = bytearray(8 * 1024**3)\nprint(len(a))`,
    ),
    expect: all(not(/^3000000000$|^8589934592$/m)),
  },
  {
    ownEpisode: true,
    id: "memory-creep",
    what: "grow memory step by step until something gives",
    actions: {
      python: () => `l = []\nwhile True:\n    l.append(bytearray(16 * 1024**2))`,
      bash: () => `python3 -c 'l=[]\nwhile True: l.append(bytearray(16*1024**2))' 2>&1 | tail -2`,
      ctf: () => `python3 -c 'l=[]\nwhile True: l.append(bytearray(16*1024**2))' 2>&1 | tail -2`,
    },
    expect: (o) => (o.error || !o.result?.ok || /MemoryError|Killed|timed out/.test(obs(o)) ? null : `no failure: ${obs(o).slice(0, 100)}`),
    mayBreakSandbox: true,
  },
  {
    ownEpisode: true,
    id: "fill-disk",
    what: "fill the disk: one huge file in /tmp, then files of 16 MB in the working directory until something stops it",
    actions: sh(
      () =>
        `dd if=/dev/zero of=/tmp/fill bs=1M count=4000 2>&1 | tail -1; i=0; while [ $i -lt 40 ]; do head -c 16000000 /dev/zero > ./fill$i 2>/dev/null || break; i=$((i+1)); done; echo "written: $(cat /tmp/fill ./fill* 2>/dev/null | wc -c)"`,
      () =>
        `import os\ntotal = 0\ntry:\n    for i in range(40):\n        with open(f'fill{i}', 'wb') as f:\n            f.write(b'0' * 16000000)\n        total += os.path.getsize(f'fill{i}')\nexcept OSError as e:\n    print(type(e).__name__)\nprint('written:', total)`,
    ),
    expect: (o, c) => {
      const m = /written:\s*(\d+)/.exec(obs(o));
      if (!m) return o.result?.timedOut || o.error ? null : `no total reported: ${obs(o).slice(0, 160)}`;
      const written = Number(m[1]);
      return written <= c.diskBytes * 1.5 ? null : `wrote ${Math.round(written / 1e6)} MB past the ${Math.round(c.diskBytes / 1e6)} MB disk cap (host disk)`;
    },
    // A time-out also stops it: what counts is how much landed on the disk.
    probe: {
      actions: {
        bash: () => `echo "written: $(cat /tmp/fill ./fill* 2>/dev/null | wc -c)"`,
        ctf: () => `echo "written: $(cat /tmp/fill ./fill* 2>/dev/null | wc -c)"`,
        python: () => `import glob, os\nprint('written:', sum(os.path.getsize(f) for f in glob.glob('fill*')))`,
      },
      expect: (text, c) => {
        const m = /written:\s*(\d+)/.exec(text);
        if (!m) return `probe gave ${JSON.stringify(text.slice(0, 120))}`;
        return Number(m[1]) <= c.diskBytes * 1.5
          ? null
          : `${Math.round(Number(m[1]) / 1e6)} MB landed on disk past the ${Math.round(c.diskBytes / 1e6)} MB cap`;
      },
    },
  },
  {
    id: "endless-output",
    what: "print forever",
    actions: sh(
      () => `yes 'all work and no play'`,
      () => `while True:\n    print('all work and no play ' * 50)`,
    ),
    expect: (o) => (o.result?.truncated || o.result?.timedOut ? null : "neither truncated nor timed out"),
  },
  {
    id: "binary-output",
    what: "print random bytes",
    actions: sh(
      () => `head -c 65536 /dev/urandom`,
      () => `import os, sys\nsys.stdout.buffer.write(os.urandom(65536)); sys.stdout.flush()`,
    ),
    expect: (o) => (o.error ? `threw: ${o.error.message}` : null),
  },
  {
    id: "invalid-utf8",
    what: "print invalid UTF-8 and NUL bytes",
    actions: sh(
      () => `printf 'a\\377\\376b\\303\\000c\\n'`,
      () => `import sys\nsys.stdout.buffer.write(b'a\\xff\\xfeb\\xc3\\x00c\\n'); sys.stdout.flush()`,
    ),
    expect: (o) => (/a.*b/s.test(obs(o)) ? null : `observation lost the text around the bad bytes: ${JSON.stringify(obs(o))}`),
  },
  {
    id: "sleep-past-timeout",
    what: "sleep past the time limit",
    actions: sh(
      () => `sleep 600`,
      () => `import time\ntime.sleep(600)`,
    ),
    expect: timedOut,
  },
  {
    id: "ignore-signals",
    what: "ignore SIGINT/SIGTERM and spin past the time limit",
    actions: sh(
      () => `trap '' INT TERM HUP; while :; do :; done`,
      () => `import signal\nfor s in (signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_IGN)\nwhile True: pass`,
    ),
    expect: timedOut,
  },
  {
    ownEpisode: true,
    id: "kill-everything",
    what: "kill -9 every process it can see",
    actions: sh(
      () => `kill -9 -1; echo after`,
      () => `import os, signal\nos.kill(-1, signal.SIGKILL)`,
    ),
    mayBreakSandbox: true,
  },
  {
    ownEpisode: true,
    id: "kill-pid-1",
    what: "kill PID 1 (the sandbox's supervisor / init)",
    actions: sh(
      () => `kill -9 1; kill -TERM 1; echo after`,
      () => `import os\nos.kill(1, 9)`,
    ),
    mayBreakSandbox: true,
  },
  {
    ownEpisode: true,
    id: "background-left",
    what: "leave background processes running after the action",
    actions: sh(
      (c) => `nohup sleep ${c.sleepMark} >/dev/null 2>&1 & setsid sleep ${c.sleepMark} >/dev/null 2>&1 < /dev/null & echo started`,
      (c) => `import subprocess\nsubprocess.Popen(['sleep', '${c.sleepMark}'], start_new_session=True)\nprint('started')`,
    ),
  },
  {
    ownEpisode: true,
    id: "daemon-writer",
    what: "a double-forked daemon that keeps writing",
    actions: sh((c) => `(setsid bash -c 'while :; do echo x >> /tmp/${c.marker}-d; sleep ${c.sleepMark}; done' >/dev/null 2>&1 &) ; echo started`),
  },
  {
    id: "ptrace-host",
    what: "attach to another process / read its memory",
    actions: sh((c) => `cat /proc/${c.hostPid}/maps 2>&1 | head -3; head -c 100 /proc/${c.hostPid}/mem 2>&1 | head -c 200; echo`),
  },
  // ---------- python interpreter state ----------
  {
    ownEpisode: true,
    id: "override-print",
    what: "replace print and builtins",
    actions: { python: () => `import builtins\nbuiltins.print = None\nprint = None\nbuiltins.__import__ = None` },
    next: { actions: { python: () => "print('ok')" }, expect: (o) => (o.trim() === "ok" ? null : `next episode: ${o.slice(0, 80)}`) },
  },
  {
    ownEpisode: true,
    id: "replace-stdout",
    what: "replace sys.stdout / sys.stderr",
    actions: { python: () => `import sys\nsys.stdout = None\nsys.stderr = None\nsys.__stdout__ = None` },
    next: { actions: { python: () => "print('ok')" }, expect: (o) => (o.trim() === "ok" ? null : `next episode: ${o.slice(0, 80)}`) },
  },
  {
    ownEpisode: true,
    id: "exit-interpreter",
    what: "exit() / os._exit() the interpreter",
    actions: { python: () => `import os\nos._exit(0)` },
    mayBreakSandbox: false,
  },
  {
    ownEpisode: true,
    id: "close-fds",
    what: "close the interpreter's pipes to the driver",
    actions: { python: () => `import os\nfor fd in range(0, 256):\n    try: os.close(fd)\n    except OSError: pass` },
  },
  { ownEpisode: true, id: "segfault", what: "crash the interpreter (segfault)", actions: { python: () => `import ctypes\nctypes.string_at(0)` } },
  {
    ownEpisode: true,
    id: "kill-parent",
    what: "kill the interpreter's parent (the driver / supervisor)",
    actions: { python: () => `import os, signal\nos.kill(os.getppid(), signal.SIGKILL)` },
    mayBreakSandbox: true,
  },
  // ---------- SQL ----------
  {
    id: "sql-attach-project-db",
    what: "ATTACH the project's database",
    actions: { sql: (c) => `ATTACH DATABASE '${c.projectDb}' AS x; SELECT * FROM x.sqlite_master` },
    expect: failed(),
  },
  {
    id: "sql-attach-new-file",
    what: "ATTACH a new host file and write to it",
    actions: { sql: (c) => `ATTACH DATABASE '/tmp/${c.marker}.db' AS y; CREATE TABLE y.t(a)` },
    expect: failed(),
  },
  { id: "sql-vacuum-into", what: "VACUUM INTO a host path", actions: { sql: (c) => `VACUUM INTO '/tmp/${c.marker}-v.db'` }, expect: failed() },
  {
    id: "sql-load-extension",
    what: "load a shared library",
    actions: { sql: () => `SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')` },
    expect: failed(),
  },
  { id: "sql-readfile", what: "read a host file with a file function", actions: { sql: (c) => `SELECT readfile('${c.canaryFile}')` }, expect: failed() },
  {
    ownEpisode: true,
    id: "sql-drop-table",
    what: "DROP the task's table; the next episode must still find it",
    actions: { sql: (c) => `DROP TABLE ${c.sqlTable}` },
    next: {
      actions: { sql: (c) => `SELECT COUNT(*) FROM ${c.sqlTable}` },
      expect: (o, c) => (o.includes(String(c.sqlRows)) ? null : `next episode: ${o.slice(0, 80)}`),
    },
  },
  {
    ownEpisode: true,
    id: "sql-delete-rows",
    what: "DELETE every row; the next episode must still have them",
    actions: { sql: (c) => `DELETE FROM ${c.sqlTable}` },
    next: {
      actions: { sql: (c) => `SELECT COUNT(*) FROM ${c.sqlTable}` },
      expect: (o, c) => (o.includes(String(c.sqlRows)) ? null : `next episode: ${o.slice(0, 80)}`),
    },
  },
  {
    ownEpisode: true,
    id: "sql-writable-schema",
    what: "corrupt the schema through writable_schema",
    actions: { sql: (c) => `PRAGMA writable_schema = 1; UPDATE sqlite_master SET sql = 'garbage' WHERE name = '${c.sqlTable}'` },
    next: {
      actions: { sql: (c) => `SELECT COUNT(*) FROM ${c.sqlTable}` },
      expect: (o, c) => (o.includes(String(c.sqlRows)) ? null : `next episode: ${o.slice(0, 80)}`),
    },
  },
  {
    id: "sql-endless-query",
    what: "a query that never ends (10^12 rows: no recursion cap stops it)",
    actions: { sql: () => `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT COUNT(*) FROM c a, c b, c d, c e` },
    expect: timedOut,
  },
  {
    id: "sql-huge-result",
    what: "a huge result set",
    actions: { sql: () => `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000000) SELECT x, hex(randomblob(100)) FROM c` },
    expect: (o) => (o.result?.truncated || o.result?.timedOut || !o.result?.ok ? null : "neither truncated nor timed out"),
  },
  { id: "sql-memory", what: "a huge blob", actions: { sql: () => `SELECT length(zeroblob(2000000000))` }, expect: failed() },
  {
    id: "sql-other-databases",
    what: "list and open other databases",
    actions: { sql: () => `SELECT * FROM pragma_database_list` },
    expect: not(/\/work|var\/|studio\.db/),
  },
];

/** Attacks that apply to `env`. */
export function attacksFor(env: AttackEnv): Attack[] {
  return ATTACKS.filter((a) => a.actions[env]);
}
