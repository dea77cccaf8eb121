/**
 * One writer at a time inside this process. Prisma's transactions are asynchronous (BEGIN, then
 * awaited statements) while the bulk importer writes synchronously on a second connection; if
 * the importer started while a Prisma transaction was open it would block the event loop waiting
 * for a lock that cannot be released. Every multi-statement write in lib/db goes through here.
 */
let tail: Promise<unknown> = Promise.resolve();

export function withWriteLock<T>(fn: () => Promise<T> | T): Promise<T> {
  const run = tail.then(fn, fn);
  tail = run.catch(() => undefined);
  return run;
}
