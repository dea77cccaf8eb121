import "server-only";
import { StringDecoder } from "node:string_decoder";
import type { SandboxProcess } from "@/lib/sandbox/types";

/**
 * The frame a long-running driver (shell or interpreter) writes after each request: on stdout
 * `frameStart body frameEnd`, and `errMark` on stderr, so both streams are known to be drained.
 */
export interface FrameMarks {
  frameStart: string;
  frameEnd: string;
  errMark: string;
}

export interface ExchangeOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  onOutput?: (chunk: string) => void;
  signal?: AbortSignal;
  /** Asks the running request to stop (kill its processes, interrupt the interpreter). */
  interrupt: () => void;
  /** Called when the driver did not answer within the grace period after `interrupt`: kill it. */
  kill: () => void;
  /** How long an interrupted request gets to answer before the driver is killed. */
  graceMs?: number;
}

export interface ExchangeResult {
  /** stdout and stderr interleaved in arrival order, cut at the cap. */
  output: string;
  /** The frame's body, or null when the driver never wrote one (it died or was killed). */
  frame: string | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  /** The driver ended (or was killed) during the request. */
  died: boolean;
}

/** Sends one request to a framed driver and collects its output until the frame. */
export function exchange(proc: SandboxProcess, request: string | Buffer, marks: FrameMarks, o: ExchangeOptions): Promise<ExchangeResult> {
  return new Promise<ExchangeResult>((resolve) => {
    const outDec = new StringDecoder("utf8");
    const errDec = new StringDecoder("utf8");
    let outBuf = "";
    let errBuf = "";
    let output = "";
    let kept = 0;
    let seenBytes = 0;
    let truncated = false;
    let frame: string | null = null;
    let errDone = false;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let died = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const emit = (text: string) => {
      if (!text) return;
      const bytes = Buffer.byteLength(text);
      seenBytes += bytes;
      if (!truncated) {
        const room = o.maxOutputBytes - kept;
        if (bytes <= room) {
          output += text;
          kept += bytes;
          o.onOutput?.(text);
        } else {
          const part = Buffer.from(text)
            .subarray(0, room)
            .toString("utf8")
            .replace(/\uFFFD$/, "");
          output += part;
          kept = o.maxOutputBytes;
          truncated = true;
          if (part) o.onOutput?.(part);
        }
      }
      // Endless output (`yes`): far past the cap, stop the request instead of waiting for the timeout.
      if (truncated && seenBytes > o.maxOutputBytes * 16) stop(null);
    };

    const scanOut = () => {
      if (frame !== null) return;
      const i = outBuf.indexOf(marks.frameStart);
      if (i >= 0) {
        emit(outBuf.slice(0, i));
        outBuf = outBuf.slice(i);
        const j = outBuf.indexOf(marks.frameEnd, marks.frameStart.length);
        if (j < 0) return;
        frame = outBuf.slice(marks.frameStart.length, j);
        outBuf = "";
      } else {
        const cut = holdFrom(outBuf, marks.frameStart);
        emit(outBuf.slice(0, cut));
        outBuf = outBuf.slice(cut);
      }
    };
    const scanErr = () => {
      if (errDone) return;
      const i = errBuf.indexOf(marks.errMark);
      if (i >= 0) {
        emit(errBuf.slice(0, i));
        errBuf = "";
        errDone = true;
      } else {
        const cut = holdFrom(errBuf, marks.errMark);
        emit(errBuf.slice(0, cut));
        errBuf = errBuf.slice(cut);
      }
    };

    const unsubscribe = proc.onData((chunk, stream) => {
      if (stream === "stdout") {
        outBuf += outDec.write(chunk);
        scanOut();
      } else {
        errBuf += errDec.write(chunk);
        scanErr();
      }
      if (frame !== null && errDone) finish();
    });

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      o.signal?.removeEventListener("abort", onAbort);
      unsubscribe();
      if (frame === null) {
        emit(outBuf + outDec.end());
        if (!errDone) emit(errBuf + errDec.end());
      }
      resolve({ output, frame, timedOut, aborted, truncated, died });
    };

    function stop(why: "timeout" | "abort" | null) {
      if (settled || graceTimer) return;
      if (why === "timeout") timedOut = true;
      if (why === "abort") aborted = true;
      o.interrupt();
      graceTimer = setTimeout(() => {
        died = true;
        o.kill();
        finish();
      }, o.graceMs ?? 400);
    }

    const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
    const onAbort = () => stop("abort");
    if (o.signal?.aborted) queueMicrotask(onAbort);
    else o.signal?.addEventListener("abort", onAbort, { once: true });

    proc.exited.then(() => {
      if (settled) return;
      // Let the last chunks arrive before giving up on the frame.
      setTimeout(() => {
        if (settled) return;
        died = true;
        finish();
      }, 20);
    });

    try {
      proc.write(request);
    } catch {
      died = true;
      finish();
    }
  });
}

/** Where the part of `buf` that may be the start of `mark` begins (buf.length when none): only that part is held back. */
function holdFrom(buf: string, mark: string): number {
  for (let i = Math.max(0, buf.length - mark.length + 1); i < buf.length; i++) {
    if (mark.startsWith(buf.slice(i))) return i;
  }
  return buf.length;
}
