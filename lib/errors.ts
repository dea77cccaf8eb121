/**
 * One small error tree for the whole Studio. Every error a caller may handle carries a
 * machine-readable `code`; `toHttp` and `toExitCode` are the only places that turn an error
 * into a response or a process exit status.
 */
export type ErrorCode =
  | "bad_input"
  | "not_found"
  | "timeout"
  | "output_limit"
  | "sandbox_unavailable"
  | "sandbox_failed"
  | "limit_reached"
  | "unauthorized"
  | "forbidden"
  | "conflict"
  | "storage"
  | "provider"
  | "internal";

export class StudioError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Input that fails validation. `where` names the file, record, field or parameter at fault. */
export class BadInputError extends StudioError {
  readonly where?: string;
  constructor(message: string, where?: string, details?: Record<string, unknown>) {
    super("bad_input", where ? `${where}: ${message}` : message, { ...details, where });
    this.where = where;
  }
}

export class NotFoundError extends StudioError {
  constructor(what: string, details?: Record<string, unknown>) {
    super("not_found", `${what} not found`, details);
  }
}

/** No sandbox backend can run here; the message says how to install one. */
export class SandboxUnavailableError extends StudioError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("sandbox_unavailable", message, details);
  }
}

/** A sandbox broke (its engine stopped, its process died) in a way the episode cannot survive. */
export class SandboxError extends StudioError {
  constructor(message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super("sandbox_failed", message, details, options);
  }
}

/** A cap was reached (live sandboxes, turns, request size). */
export class LimitReachedError extends StudioError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("limit_reached", message, details);
  }
}

export class UnauthorizedError extends StudioError {
  constructor(message = "a valid token is required") {
    super("unauthorized", message);
  }
}

/** Who asks is known, and may not do this (a participant outside their own study and tasks). */
export class ForbiddenError extends StudioError {
  constructor(message: string) {
    super("forbidden", message);
  }
}

export class ConflictError extends StudioError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("conflict", message, details);
  }
}

/** The store could not write (read-only file, disk full); nothing was half-written. */
export class StorageError extends StudioError {
  constructor(message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super("storage", message, details, options);
  }
}

/** A model provider failed (HTTP error, timeout, malformed reply) after its retries. */
export class ProviderError extends StudioError {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super("provider", message, details, options);
    this.retryable = retryable;
  }
}

const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  output_limit: 413,
  limit_reached: 429,
  timeout: 504,
  sandbox_unavailable: 503,
  sandbox_failed: 502,
  storage: 507,
  provider: 502,
  internal: 500,
};

const EXIT_CODE: Record<ErrorCode, number> = {
  bad_input: 2,
  not_found: 3,
  unauthorized: 4,
  forbidden: 4,
  conflict: 5,
  limit_reached: 6,
  timeout: 7,
  output_limit: 7,
  sandbox_unavailable: 8,
  sandbox_failed: 8,
  storage: 9,
  provider: 10,
  internal: 1,
};

/** Wraps anything thrown into a StudioError (unknown errors become `internal`). */
export function asStudioError(err: unknown): StudioError {
  if (err instanceof StudioError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StudioError("internal", message, undefined, { cause: err });
}

/** The one place an error becomes an HTTP status and JSON body. */
export function toHttp(err: unknown): { status: number; body: { error: { code: ErrorCode; message: string; where?: string } } } {
  const e = asStudioError(err);
  const where = e instanceof BadInputError ? e.where : undefined;
  return { status: HTTP_STATUS[e.code], body: { error: { code: e.code, message: e.message, ...(where ? { where } : {}) } } };
}

/** The one place an error becomes a CLI exit status. */
export function toExitCode(err: unknown): number {
  return EXIT_CODE[asStudioError(err).code];
}
