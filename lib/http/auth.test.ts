import { describe, expect, it } from "vitest";
import { assertSafeBind, authorizeRequest, hasValidCredentials, isLoopbackHost, safeEqual, safeNext, sessionCookie, sessionValue } from "./auth";

const req = (headers: Record<string, string> = {}, method = "GET") => ({ headers, method });

describe("auth", () => {
  it("knows loopback addresses", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["0.0.0.0", "192.168.1.2", "::", "example.com"]) expect(isLoopbackHost(h)).toBe(false);
  });

  it("refuses a non-loopback bind without a token", () => {
    expect(() => assertSafeBind("0.0.0.0", null)).toThrow(/IC_TOKEN/);
    expect(() => assertSafeBind("0.0.0.0", "t")).not.toThrow();
    expect(() => assertSafeBind("127.0.0.1", null)).not.toThrow();
  });

  it("compares in constant time and exactly", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
  });

  it("accepts the session cookie or a Bearer token, nothing else", () => {
    const token = "tok-123";
    expect(hasValidCredentials(req({ authorization: `Bearer ${token}` }), token)).toBe(true);
    expect(hasValidCredentials(req({ authorization: "Bearer tok-124" }), token)).toBe(false);
    expect(hasValidCredentials(req({ cookie: `a=1; ic_session=${sessionValue(token)}` }), token)).toBe(true);
    // The cookie holds an HMAC, not the token.
    expect(hasValidCredentials(req({ cookie: `ic_session=${token}` }), token)).toBe(false);
    expect(sessionCookie(token, false)).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it("sends pages to /login, answers the rest 401, and lets only the login page and static assets through", () => {
    const t = "x";
    expect(authorizeRequest(req({ accept: "text/html" }), "/play", t)).toEqual({ allow: false, reason: "login" });
    expect(authorizeRequest(req({ accept: "text/html" }), "/api/tasks", t)).toEqual({ allow: false, reason: "unauthorized" });
    expect(authorizeRequest(req({}, "POST"), "/api/studies", t)).toEqual({ allow: false, reason: "unauthorized" });
    expect(authorizeRequest(req(), "/login", t).allow).toBe(true);
    expect(authorizeRequest(req({}, "POST"), "/login", t).allow).toBe(true);
    expect(authorizeRequest(req(), "/_next/static/chunks/a.js", t).allow).toBe(true);
    expect(authorizeRequest(req(), "/_next/image", t).allow).toBe(false);
    expect(authorizeRequest(req({}, "POST"), "/_next/static/x", t).allow).toBe(false);
    expect(authorizeRequest(req(), "/play", null).allow).toBe(true);
  });

  it("redirects after login to local paths only", () => {
    expect(safeNext("/play?x=1")).toBe("/play?x=1");
    for (const bad of ["//evil.example", "https://evil.example", "/\\evil", "", null]) expect(safeNext(bad)).toBe("/");
  });
});
