// Which run called process.exit, when a matrix runs cells at once. Each run puts its own process.exit in place while
// its run() is awaited (lib/run/settle.ts) and puts back the one it found; runs that overlap shared the one property,
// so the run that started last took every call: the cell that called process.exit went on to PASS, and another cell
// was stopped in its name (then retried to PASS: exit 0, Q365). While a session's cells run, process.exit is an
// accessor instead: what a run assigns is kept for the cell it runs in (the async context each attempt runs in), and a
// call reaches the caller's own.
import { AsyncLocalStorage } from 'node:async_hooks';

type Exit = typeof process.exit;

const attempt = new AsyncLocalStorage<object>();

/** Run `fn` as one attempt of a cell: its run()'s process.exit is its own while `withCellExits` holds. */
export const inCellAttempt = <T>(fn: () => T): T => attempt.run({}, fn);

/** Run `body` (the session's cells) with process.exit kept per attempt; put back as a plain property afterwards. */
export async function withCellExits<T>(body: () => Promise<T>, proc: { exit: Exit } = process): Promise<T> {
  const found = Object.getOwnPropertyDescriptor(proc, 'exit');
  // Note: not a plain property (a session inside a session's cell): the outer one holds it already
  if (!found || !('value' in found)) return body();
  let base = found.value as Exit;
  const own = new WeakMap<object, Exit>();
  Object.defineProperty(proc, 'exit', {
    configurable: true,
    enumerable: found.enumerable ?? true,
    get: () => {
      const at = attempt.getStore();
      return (at && own.get(at)) || base;
    },
    set: (value: Exit) => {
      const at = attempt.getStore();
      if (!at) base = value;
      else if (value === base) own.delete(at);
      else own.set(at, value);
    },
  });
  try {
    return await body();
  } finally {
    Object.defineProperty(proc, 'exit', { ...found, value: base });
  }
}
