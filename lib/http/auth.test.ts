import { describe, expect, it } from "vitest";
import { assertSafeBind, contentTypeReason, crossOriginReason, hostAllowed, isLoopbackHost, mayReach, safeEqual, safeNext, type Access } from "./auth";
import { FailureLimiter } from "./rate-limit";

const req = (headers: Record<string, string> = {}, method = "GET") => ({ headers, method });
const LOOPBACK = { bindHost: "127.0.0.1", allowedHosts: [] };
const owner: Access = { role: "owner", via: "open", sessionId: null };

describe("auth", () => {
  it("knows loopback addresses", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["0.0.0.0", "192.168.1.2", "::", "example.com"]) expect(isLoopbackHost(h)).toBe(false);
  });

  it("refuses a non-loopback bind without a token, and a token shorter than 32 characters", () => {
    expect(() => assertSafeBind("0.0.0.0", null)).toThrow(/IC_TOKEN/);
    expect(() => assertSafeBind("0.0.0.0", "t")).toThrow(/IC_TOKEN is 1 characters long: use at least 32/);
    expect(() => assertSafeBind("127.0.0.1", "x".repeat(31))).toThrow(/at least 32/);
    expect(() => assertSafeBind("0.0.0.0", "x".repeat(32))).not.toThrow();
    expect(() => assertSafeBind("127.0.0.1", null)).not.toThrow();
  });

  it("compares in constant time and exactly", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
  });

  it("answers only to loopback names, its own host and IC_ALLOWED_HOSTS (finding 2: DNS rebinding)", () => {
    for (const h of ["127.0.0.1:3300", "localhost:3300", "[::1]:3300", "LOCALHOST", "localhost."]) expect(hostAllowed(h, LOOPBACK)).toBe(true);
    for (const h of ["evil.example:3300", "evil.example", "", "127.0.0.1.evil.example", "[::1", "a b"]) expect(hostAllowed(h, LOOPBACK)).toBe(false);
    expect(hostAllowed(undefined, LOOPBACK)).toBe(false);
    expect(hostAllowed("studio.lab.example:443", { bindHost: "0.0.0.0", allowedHosts: ["studio.lab.example"] })).toBe(true);
    expect(hostAllowed("studio.lab.example", { bindHost: "studio.lab.example", allowedHosts: [] })).toBe(true);
    expect(hostAllowed("other.example", { bindHost: "0.0.0.0", allowedHosts: ["studio.lab.example"] })).toBe(false);
  });

  it("refuses state changes from another origin or port, by Origin or else Referer (findings 1, 3)", () => {
    const host = "127.0.0.1:3300";
    expect(crossOriginReason(req({ host, origin: "http://127.0.0.1:3300" }))).toBeNull();
    expect(crossOriginReason(req({ host, referer: "http://127.0.0.1:3300/models" }))).toBeNull();
    expect(crossOriginReason(req({ host }))).toBeNull(); // a program, not a browser
    expect(crossOriginReason(req({ host, origin: "http://127.0.0.1:9997" }))).toMatch(/another site/);
    expect(crossOriginReason(req({ host, origin: "http://localhost:3300" }))).toMatch(/another site/);
    expect(crossOriginReason(req({ host, origin: "null" }))).toMatch(/not a page of this server/);
    expect(crossOriginReason(req({ host, referer: "http://evil.example/x" }))).toMatch(/Referer/);
    expect(crossOriginReason(req({ host, origin: "file://" }))).toMatch(/not a page/);
  });

  it("takes only application/json on JSON routes and multipart on upload routes (finding 1)", () => {
    const post = (type: string | undefined, n = 2) => req({ "content-length": String(n), ...(type ? { "content-type": type } : {}) }, "POST");
    expect(contentTypeReason(post("application/json; charset=utf-8"), "/api/models")).toBeNull();
    expect(contentTypeReason(post("text/plain"), "/api/models")).toMatch(/takes a application\/json body, not "text\/plain"/);
    expect(contentTypeReason(post("application/x-www-form-urlencoded"), "/api/models/x/test")).toMatch(/application\/json/);
    expect(contentTypeReason(post(undefined), "/api/runs")).toMatch(/without a Content-Type/);
    expect(contentTypeReason(post("multipart/form-data; boundary=x"), "/api/episodes/import")).toBeNull();
    expect(contentTypeReason(post("text/plain"), "/api/episodes/import")).toMatch(/multipart/);
    expect(contentTypeReason(post("text/plain", 0), "/api/runs/x/stop")).toBeNull();
    expect(contentTypeReason(req({ "content-type": "text/plain", "content-length": "3" }), "/api/tasks")).toBeNull();
  });

  it("lets the owner reach everything, a participant only what is opened to participants, nobody only public paths", () => {
    expect(mayReach(owner, "POST", "/api/models")).toBe(true);
    const participant: Access = { role: "participant", participantId: "p1", via: "session", sessionId: "s" };
    expect(mayReach(participant, "GET", "/models")).toBe(false);
    expect(mayReach(participant, "POST", "/logout")).toBe(true);
    expect(mayReach(null, "GET", "/login")).toBe(true);
    expect(mayReach(null, "GET", "/_next/static/chunks/a.js")).toBe(true);
    expect(mayReach(null, "GET", "/_next/image")).toBe(false);
    expect(mayReach(null, "POST", "/_next/static/x")).toBe(false);
    expect(mayReach(null, "GET", "/play")).toBe(false);
  });

  it("redirects after login to paths on this server only (finding 5)", () => {
    expect(safeNext("/play?x=1")).toBe("/play?x=1");
    expect(safeNext("/episodes/abc#t3")).toBe("/episodes/abc#t3");
    for (const bad of [
      "//evil.example",
      "https://evil.example",
      "/\\evil",
      "",
      null,
      "/%09/evil.example/phish",
      "/\t/evil.example",
      "/%2F/evil.example",
      "/x\r\nSet-Cookie: a=b",
      "/%0d%0aSet-Cookie:a=b",
      "/%5Cevil",
    ])
      expect(safeNext(bad)).toBe("/");
  });

  it("limits failed credentials per address with a retry time (finding 6)", () => {
    let t = 0;
    const l = new FailureLimiter(3, 60_000, () => t);
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfter("a")).toBe(0);
      l.fail("a");
    }
    expect(l.retryAfter("a")).toBe(60);
    expect(l.retryAfter("b")).toBe(0);
    t = 30_000;
    expect(l.retryAfter("a")).toBe(30);
    t = 60_001;
    expect(l.retryAfter("a")).toBe(0);
  });
});
