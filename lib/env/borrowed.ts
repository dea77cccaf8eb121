import type { Environment } from "./types";

/**
 * `env` lent to a session that closes what it is given (lib/episodes/session.ts closes its sandbox
 * at the end, and when a reset fails): its `close` does nothing, so the lender plays its next
 * episode in it and closes it itself (recheck's shared bash sandbox, gold-check's workers).
 */
export function borrowed(env: Environment): Environment {
  return new Proxy(env, {
    get(target, key) {
      if (key === "close") return async () => {};
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
