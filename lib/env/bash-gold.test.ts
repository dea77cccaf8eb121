import { describe, expect, it } from "vitest";
import { volatileReason } from "./bash-gold";

describe("the screen that keeps a gold out of bash's score cache", () => {
  it("names what the golds that cannot repeat themselves read (InterCode's documented races among them)", () => {
    const volatile: [string, string][] = [
      ['echo $(date) "1" | tee -a /system/folder3/temp/empty.txt', "the clock"], // fs2 42
      ["proc_load_average=$(w | head -n 1 | awk '{print $NF}' | tr ',' '.') && echo $proc_load_average", "the clock"], // fs4 25
      ["curl http://example.com/textfile.txt -o /system/textfile.txt", "the host or the network"], // fs2 49
      ["pstree -a", "the load or the process table"], // fs4 5
      ["dig -x 127.0.0.1", "the host or the network"], // fs4 1
      ["env | sed 's/;/\\\\;/g'", "the host or the network"], // fs4 4
      ["grep -r Hello * | awk '{print $1}'", "a walk of / or a background job"], // fs1 55
      ["find /testbed -type f -mtime +7 | tee compressedP.list | xargs -I{} -P10 compress {} &", "the clock"], // fs1 11
      ["find /testbed -type f | xargs gzip &", "a walk of / or a background job"],
      ["find / -name '*.txt'", "a walk of / or a background job"],
      ["find . -name '*.txt' | wc -l", "a walk of / or a background job"],
      ["echo $$ $RANDOM", "the load or the process table"],
      ["cat /proc/loadavg", "the load or the process table"],
      ["mktemp -d", "randomness"],
      ["ls | xargs time wc", "the clock"],
      ["echo $HOSTNAME", "the host or the network"],
      ["ls -ald `which c++`", "the clock"], // fs4 2: no c++, so it lists "/", made when the sandbox started
      ["mount -v | grep smbfs | awk '{print $3}' | xargs ls -ls", "the clock"], // fs4 11: likewise
      ['find /workspace -printf "%T@ %p\\n" | sort -n', "the clock"],
      ["stat -c %y /testbed", "the clock"],
    ];
    for (const [gold, what] of volatile) expect(volatileReason(gold), gold).toBe(`it reads ${what}`);
  });

  it("leaves alone golds that only read and write the task's tree, short names that are not commands included", () => {
    const stable = [
      "find /testbed/dir2/subdir2 -type f -print0 | sort -z | xargs -r0 md5sum | md5sum",
      "md5sum /testbed/*.java | awk '{print $1}' | sort | uniq -d",
      "find /testbed -type d -name \"dir1\" -print |  sed 's/$/\\/abc.txt/g' | xargs touch",
      "wc -w /testbed/dir1/*.txt 2>&1 && grep -c time /testbed/notes.txt",
      "cd /testbed && ls -a | sort > names.txt",
      "find /workspace -type d -printf '%d\\t%P\\n' | sort -r -nk1 | cut -f2-",
    ];
    for (const gold of stable) expect(volatileReason(gold), gold).toBeNull();
  });
});
