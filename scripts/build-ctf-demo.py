#!/usr/bin/env python3
"""Writes the project's demo CTF tasks: datasets/ctf/<id>/ (the task files) and datasets/demo-ctf.json.

Run from the repository root: python3 scripts/build-ctf-demo.py
The generated files are committed; running this again rewrites them (archives that carry a
random salt, such as the encrypted zip, then differ in bytes but not in meaning).
Needs: git, zip, sqlite3 (Python's module). Each task's `solution` runs in /ctf with the files.
"""
import base64
import codecs
import gzip
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CTF_DIR = os.path.join(ROOT, "datasets", "ctf")
FIXED_TIME = 1700000000  # 2023-11-14T22:13:20Z, stamped into archives
GREP_FLAG = "grep -o 'studio{[^}]*}'"

tasks = []


def task(id, query, flag, tags, solution):
    def register(build):
        d = os.path.join(CTF_DIR, id)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        build(d, flag)
        for dirpath, dirnames, filenames in os.walk(d):
            for name in dirnames + filenames:
                os.utime(os.path.join(dirpath, name), (FIXED_TIME, FIXED_TIME), follow_symlinks=False)
        tasks.append({"id": id, "query": query, "gold": flag, "files": f"ctf/{id}", "tags": tags, "solution": solution})
        return build

    return register


def write(d, name, data, mode=0o644):
    p = os.path.join(d, name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.chmod(p, mode)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def tar_gz(members) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = FIXED_TIME
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    return gz(buf.getvalue())


@task("base64-note", "A note was left in note.txt, but it looks like gibberish. Decode it and find the flag.",
      "studio{b4se64_is_n0t_encrypti0n}", ["encoding", "base64"], f"base64 -d note.txt | {GREP_FLAG}")
def _(d, flag):
    text = f"Dear team,\nthe staging password rotates on Monday.\nFor the record, the flag is {flag}\n-- ops\n"
    write(d, "note.txt", base64.encodebytes(text.encode()).decode())


@task("hex-message", "message.hex holds a message written as hexadecimal digits. Turn it back into text and read the flag.",
      "studio{h3x_digits_sp3ll_w0rds}", ["encoding", "hex"], f"xxd -r -p message.hex | {GREP_FLAG}")
def _(d, flag):
    text = f"Transmission 7 received. Payload: {flag}. End of transmission.\n"
    hx = text.encode().hex()
    write(d, "message.hex", "\n".join(hx[i:i + 64] for i in range(0, len(hx), 64)) + "\n")


@task("rot13-letter", "letter.txt was scrambled with a classic letter-rotation cipher (the one that undoes itself). Unscramble it to find the flag.",
      "studio{rotate_thirteen_twice}", ["crypto", "rot13"], f"tr 'A-Za-z' 'N-ZA-Mn-za-m' < letter.txt | {GREP_FLAG}")
def _(d, flag):
    text = f"Hello friend,\nIf you can read this, you already know the trick.\nYour reward: {flag}\nBye!\n"
    write(d, "letter.txt", codecs.encode(text, "rot_13"))


@task("nested-tarball", "bundle.tar.gz contains many directories and a single flag.txt somewhere deep inside. Print the flag.",
      "studio{t4r_balls_all_the_way_d0wn}", ["archives", "tar"], "tar -xzOf bundle.tar.gz --wildcards '*/flag.txt'")
def _(d, flag):
    members = [(f"bundle/docs/readme{i}.txt", f"decoy document {i}\n".encode()) for i in range(5)]
    members.append(("bundle/a/b/c/d/e/flag.txt", (flag + "\n").encode()))
    members += [(f"bundle/a/b/notes{i}.txt", f"nothing to see {i}\n".encode()) for i in range(3)]
    write(d, "bundle.tar.gz", tar_gz(members))


@task("git-history", "repo.bundle is a git repository. The flag was committed once and then removed. Find it in the history.",
      "studio{g1t_never_forgets}", ["forensics", "git"],
      f"git clone -q repo.bundle /tmp/repo && git -C /tmp/repo log -p | {GREP_FLAG} | head -1")
def _(d, flag):
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_AUTHOR_NAME": "dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "dev",
               "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

        def git(*args, date):
            subprocess.run(["git", "-C", tmp, *args], check=True, env={**env, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}, capture_output=True)

        git("init", "-q", "-b", "main", date="2023-01-01T10:00:00Z")
        steps = [
            ("README.md", "# Tiny app\n", "Initial commit"),
            ("secret.txt", f"temporary credentials: {flag}\n", "Add credentials for the demo"),
            (None, "secret.txt", "Remove credentials, oops"),
            ("app.py", "print('tiny app')\n", "Add the app"),
        ]
        for i, (name, content, msg) in enumerate(steps):
            if name is None:
                os.remove(os.path.join(tmp, content))
            else:
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(content)
            git("add", "-A", date=f"2023-01-0{i + 2}T10:00:00Z")
            git("commit", "-q", "-m", msg, date=f"2023-01-0{i + 2}T10:00:00Z")
        git("bundle", "create", os.path.join(d, "repo.bundle"), "--all", date="2023-01-09T10:00:00Z")


@task("python-vault", "vault.py guards a secret and only ever says 'Access denied.'. Read the code and make it reveal the flag.",
      "studio{read_the_source_luke}", ["reversing", "python"], "python3 -c 'import vault; print(vault.reveal())'")
def _(d, flag):
    key = 0x2A
    data = [b ^ key for b in flag.encode()]
    write(d, "vault.py", f'''"""A very secure vault."""

_DATA = {data!r}
_KEY = {key}


def reveal():
    return bytes(b ^ _KEY for b in _DATA).decode()


def check(password):
    return False


if __name__ == "__main__":
    import sys
    if check(sys.argv[1] if len(sys.argv) > 1 else ""):
        print(reveal())
    else:
        print("Access denied.")
''')


@task("binary-strings", "firmware.bin is a binary blob dumped from a device. Somewhere in it is a readable flag.",
      "studio{printable_in_the_n0ise}", ["forensics", "strings"], f"strings firmware.bin | {GREP_FLAG}")
def _(d, flag):
    rng = random.Random(7)
    blob = bytearray(rng.getrandbits(8) for _ in range(6000))
    # Keep the noise free of long printable runs so the flag stands out.
    for i in range(len(blob)):
        if 32 <= blob[i] < 127 and i % 3:
            blob[i] = 0
    at = 4321
    blob[at:at + len(flag) + 2] = b"\0" + flag.encode() + b"\0"
    write(d, "firmware.bin", bytes(blob))


@task("locked-zip", "secret.zip is password protected. Its owner was careless about where the password was kept. Get the flag out of it.",
      "studio{z1p_passw0rds_leak}", ["archives", "zip", "password"], "unzip -P \"$(cat .password)\" -p secret.zip flag.txt")
def _(d, flag):
    password = "correct-horse-battery"
    write(d, ".password", password + "\n")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "flag.txt"), "w") as f:
            f.write(flag + "\n")
        os.utime(os.path.join(tmp, "flag.txt"), (FIXED_TIME, FIXED_TIME))
        subprocess.run(["zip", "-q", "-X", "-P", password, os.path.join(d, "secret.zip"), "flag.txt"], cwd=tmp, check=True)
    write(d, "README.txt", "Everything important is in the zip. Do not lose the password!\n")


@task("scattered-fragments", "The flag was cut into numbered fragments (index:text) and scattered around the fragments directory. Put them back together in order.",
      "studio{puzzle_pieces_in_order}", ["misc", "files"], "grep -rh '' fragments | sort -n | cut -d: -f2- | tr -d '\\n'")
def _(d, flag):
    pieces = [flag[i:i + 4] for i in range(0, len(flag), 4)]
    places = ["fragments/x/y", "fragments/alpha", "fragments", "fragments/deep/er/still", "fragments/alpha/beta", "fragments/z"]
    rng = random.Random(3)
    for i, p in enumerate(pieces):
        where = places[rng.randrange(len(places))]
        write(d, f"{where}/piece_{rng.randrange(1000, 9999)}.txt", f"{i + 1}:{p}\n")


@task("env-pieces", "config.env sets many variables; three of them, FLAG_PART_1 to FLAG_PART_3, together make the flag. Print the whole flag.",
      "studio{environment_assembled}", ["misc", "shell"], ". ./config.env && printf '%s%s%s\\n' \"$FLAG_PART_1\" \"$FLAG_PART_2\" \"$FLAG_PART_3\"")
def _(d, flag):
    a, b, c = flag[:9], flag[9:19], flag[19:]
    write(d, "config.env", "\n".join([
        "APP_NAME=demo", f"FLAG_PART_3='{c}'", "LOG_LEVEL=info", f"FLAG_PART_1='{a}'", "PORT=8080", f"FLAG_PART_2='{b}'", "REGION=eu-west", ""]))


@task("mirror-text", "reversed.txt reads backwards. Print the flag the right way round.",
      "studio{sdrawkcab_si_siht}", ["encoding", "reverse"], "python3 -c \"print(open('reversed.txt').read().strip()[::-1])\"")
def _(d, flag):
    write(d, "reversed.txt", flag[::-1] + "\n")


@task("layered-encoding", "layers.txt hides the flag under two encodings, one on top of the other. Peel them off.",
      "studio{tw0_layers_of_paint}", ["encoding", "base64", "hex"], "base64 -d layers.txt | xxd -r -p")
def _(d, flag):
    write(d, "layers.txt", base64.b64encode((flag + "\n").encode().hex().encode()).decode() + "\n")


@task("gzip-base64", "blob.b64 is a compressed file that was then encoded as text. Recover the original and find the flag.",
      "studio{squeezed_then_encoded}", ["encoding", "base64", "gzip"], f"base64 -d blob.b64 | gunzip | {GREP_FLAG}")
def _(d, flag):
    text = ("filler line\n" * 40 + f"the flag: {flag}\n" + "more filler\n" * 40).encode()
    write(d, "blob.b64", base64.encodebytes(gz(text)).decode())


@task("sqlite-secrets", "vault.db is an SQLite database. One of its tables keeps secrets by name; read the one called flag.",
      "studio{select_star_from_secrets}", ["forensics", "sql"], "sqlite3 vault.db \"SELECT value FROM secrets WHERE name = 'flag'\"")
def _(d, flag):
    p = os.path.join(d, "vault.db")
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO users (name) VALUES ('ada'), ('grace'), ('linus');
        CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT);
    """)
    con.executemany("INSERT INTO secrets VALUES (?, ?)", [("wifi", "hunter2"), ("flag", flag), ("api", "not-a-real-key")])
    con.commit()
    con.execute("VACUUM")
    con.close()


@task("nested-json", "config.json is deeply nested. The flag is the value of a key named flag somewhere inside. Print it.",
      "studio{json_all_the_way_down}", ["misc", "json"],
      "python3 -c \"import json; print(json.load(open('config.json'))['services'][2]['settings']['secret']['flag'])\"")
def _(d, flag):
    doc = {"version": 3, "services": [
        {"name": "web", "settings": {"port": 80}},
        {"name": "db", "settings": {"port": 5432, "secret": {"password": "hunter2"}}},
        {"name": "vault", "settings": {"port": 8200, "secret": {"flag": flag, "rotate": "weekly"}}},
    ]}
    write(d, "config.json", json.dumps(doc, indent=2) + "\n")


@task("caesar-three", "cipher.txt was encrypted by shifting every letter three places forward in the alphabet. Decrypt it and print the flag.",
      "studio{et_tu_brute}", ["crypto", "caesar"], f"tr 'A-Za-z' 'X-ZA-Wx-za-w' < cipher.txt | {GREP_FLAG}")
def _(d, flag):
    def shift(ch):
        if "a" <= ch <= "z":
            return chr((ord(ch) - 97 + 3) % 26 + 97)
        if "A" <= ch <= "Z":
            return chr((ord(ch) - 65 + 3) % 26 + 65)
        return ch
    write(d, "cipher.txt", "".join(shift(c) for c in f"The flag is: {flag}\n"))


@task("url-encoded-log", "access.log recorded a request whose query string carried the flag, percent-encoded. Find it and decode it.",
      "studio{percent_encoded_secrets}", ["forensics", "logs", "web"],
      "grep -o 'studio%7B[^ &\"]*%7D' access.log | python3 -c \"import sys, urllib.parse; print(urllib.parse.unquote(sys.stdin.read().strip()))\"")
def _(d, flag):
    rng = random.Random(11)
    lines = []
    enc = flag.replace("{", "%7B").replace("}", "%7D")
    for i in range(400):
        ip = f"10.0.{rng.randrange(4)}.{rng.randrange(1, 250)}"
        path = rng.choice(["/", "/login", "/search?q=shoes", "/cart", "/api/v1/items?page=2"])
        if i == 263:
            path = f"/debug?token={enc}&verbose=1"
        lines.append(f'{ip} - - [01/Feb/2024:12:{i // 60:02d}:{i % 60:02d} +0000] "GET {path} HTTP/1.1" 200 {rng.randrange(200, 5000)}')
    write(d, "access.log", "\n".join(lines) + "\n")


@task("hidden-dotfile", "The flag is in a hidden file somewhere in this directory tree, among many ordinary ones. Find it and print it.",
      "studio{dotfiles_hide_in_plain_sight}", ["misc", "find"], "cat \"$(find . -type f -name '.flag')\"")
def _(d, flag):
    for i in range(12):
        write(d, f"docs/page{i}.txt", f"page {i}\n")
        write(d, f"src/module{i}.py", f"VALUE = {i}\n")
    write(d, ".config/.cache/.flag", flag + "\n")


@task("binary-octets", "bits.txt is a list of eight-bit binary numbers. Each one is a character. Decode the flag.",
      "studio{ones_and_zeroes}", ["encoding", "binary"],
      "python3 -c \"print(''.join(chr(int(b, 2)) for b in open('bits.txt').read().split()))\"")
def _(d, flag):
    bits = [format(b, "08b") for b in flag.encode()]
    write(d, "bits.txt", "\n".join(" ".join(bits[i:i + 8]) for i in range(0, len(bits), 8)) + "\n")


@task("xor-single-byte", "cipher.bin was XORed with a single-byte key; README.txt tells you which byte. Recover the flag.",
      "studio{x0r_with_0x5a}", ["crypto", "xor"],
      "python3 -c \"print(bytes(b ^ 0x5a for b in open('cipher.bin', 'rb').read()).decode().strip())\"")
def _(d, flag):
    write(d, "cipher.bin", bytes(b ^ 0x5A for b in (flag + "\n").encode()))
    write(d, "README.txt", "Encrypted with our state-of-the-art one-byte key: 0x5a.\n")


@task("matryoshka", "outer.zip holds an archive that holds another compressed file that holds the flag. Open them all.",
      "studio{archives_inside_archives}", ["archives", "zip", "tar", "gzip"], "unzip -p outer.zip inner.tar.gz | tar -xzO core.txt.gz | gunzip")
def _(d, flag):
    inner = tar_gz([("core.txt.gz", gz((flag + "\n").encode())), ("decoy.txt", b"not here\n")])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("inner.tar.gz", date_time=(2023, 11, 14, 22, 13, 20)), inner)
        z.writestr(zipfile.ZipInfo("readme.txt", date_time=(2023, 11, 14, 22, 13, 20)), "keep digging\n")
    write(d, "outer.zip", buf.getvalue())


@task("wrong-extension", "holiday.png will not open as a picture. Find out what it really is and read the flag inside.",
      "studio{extensions_can_lie}", ["forensics", "file-types"], f"gzip -dc holiday.png | {GREP_FLAG}")
def _(d, flag):
    write(d, "holiday.png", gz(f"Not a picture at all.\n{flag}\n".encode()))


@task("base32-memo", "memo.b32 is encoded with an alphabet of capital letters and the digits 2 to 7. Decode it and find the flag.",
      "studio{thirty_two_symbols}", ["encoding", "base32"], f"base32 -d memo.b32 | {GREP_FLAG}")
def _(d, flag):
    write(d, "memo.b32", base64.b32encode(f"Memo: the quarterly flag is {flag}\n".encode()).decode() + "\n")


@task("vertical-column", "letters.csv has one row per character; the flag is spelled down its second column. Print it on one line.",
      "studio{read_down_the_column}", ["misc", "csv"], "tail -n +2 letters.csv | cut -d, -f2 | tr -d '\\n'")
def _(d, flag):
    rng = random.Random(5)
    rows = ["position,char,noise"] + [f"{i + 1},{c},{rng.randrange(100)}" for i, c in enumerate(flag)]
    write(d, "letters.csv", "\n".join(rows) + "\n")


if __name__ == "__main__":
    doc = {"env": "ctf", "description": "The project's own capture-the-flag puzzles: encodings, ciphers, archives, git history, binaries, databases and scattered files. Flags look like studio{...}.", "tasks": tasks}
    with open(os.path.join(ROOT, "datasets", "demo-ctf.json"), "w") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
    print(f"{len(tasks)} tasks written")
