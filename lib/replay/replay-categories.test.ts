import { describe, expect, it } from "vitest";
import { categorize } from "./replay-check";

/** Pairs as InterCode's NL2Bash logs recorded them and as a replay in the Studio's sandbox gives them. */
describe("categorize: why a replayed turn differs", () => {
  it("names the network when the action or its output asks it", () => {
    expect(
      categorize("142.251.40.110", ";; UDP setup with 10.255.255.53#53(10.255.255.53) for google.com failed: network unreachable.", false, undefined, {
        action: "dig +short google.com | head -n 1",
      }),
    ).toBe("network");
    expect(
      categorize("Collecting cryptography", "/bin/bash: line 1: pip3: command not found", false, undefined, {
        action: '/bin/bash -c "pip3 install cryptography"',
      }),
    ).toBe("network");
    expect(
      categorize("ping: hostname: Name or service not known", "ping: hostname: Temporary failure in name resolution", false, undefined, {
        action: "ping -c 1 hostname",
      }),
    ).toBe("network");
  });

  it("names gold's own network call when only the reward differs", () => {
    expect(categorize("localhost", "localhost", true, undefined, { action: 'echo "localhost"', gold: "dig -x 127.0.0.1" })).toBe("network");
    expect(categorize("a", "a", true, undefined, { action: "echo a", gold: "ls" })).toBe("reward formula");
  });

  it("tells the clock, process ids, the host and tool versions apart", () => {
    expect(categorize("0.03", "8.50", false, undefined, { action: "cat /proc/loadavg | awk '{print $1}'" })).toBe("time");
    expect(categorize("bash", "python3 -c ...\n  `-pstree -a", false, undefined, { action: "pstree -a" })).toBe("process ids");
    expect(categorize("linuxkit", "v1045", false, undefined, { action: "uname -r | awk -F'-' '{print $NF}'" })).toBe("host");
    expect(categorize("overlay", "tmpfs", false, undefined, { action: "df . | awk 'NR==2 {print $1}'" })).toBe("host");
    expect(categorize("", "find: '/proc/1/map_files': Permission denied", false, undefined, { action: 'find / -type d -name "smbfs"' })).toBe("host");
    expect(categorize("5.1.16(1)-release", "5.2.15(1)-release", false, undefined, { action: "echo $BASH_VERSION" })).toBe("tool versions");
  });

  it("falls back on the texts: masked times, masked ids, order, content", () => {
    expect(categorize("built Fri May 26 12:06:15 UTC 2023", "built Mon Dec  1 10:13:00 UTC 2026", false, undefined, { action: "cat stamp" })).toBe("time");
    expect(categorize("HOSTNAME=4d01390b86bf\nPWD=/", "HOSTNAME=c92d3b990f42\nPWD=/", false, undefined, { action: "env" })).toBe("process ids");
    expect(categorize("HOSTNAME=4d01390b86bf\nSHLVL=0", "HOSTNAME=c92d3b990f42\nSHLVL=1", false, undefined, { action: "env" })).toBe("tool versions");
    expect(categorize("3 files", "4 files", false, undefined, { action: "ls | wc -l" })).toBe("environment content");
    expect(categorize("a\nb", "b\na", false, undefined, { action: "ls" })).toBe("order");
    expect(categorize("_ssh\nadm", "adm", false, undefined, { action: "cut -d: -f1 /etc/group | sort" })).toBe("environment content");
    expect(categorize("[(1,)]", "[(2,)]", false)).toBe("environment content");
  });
});
