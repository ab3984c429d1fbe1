// Importing a user's scenario file without handing it the process: its top-level code may await for ever (Node then
// exits 13 without a word once nothing else is pending) or call process.exit (a run that "passed" with no report).

/** How long a scenario file's top-level code may take: it declares a scenario, it does not run one. */
const SCENARIO_LOAD_MS = 10_000;

/** A scenario file's top-level code that called process.exit while it was loading. */
export class ExitWhileLoadingError extends Error {
  constructor(code: unknown) {
    super(`its top-level code called process.exit(${code === undefined ? '' : String(code)}) while loading`);
  }
}

/** A scenario file's top-level code that did not finish in time. */
export class SlowLoadError extends Error {
  constructor(ms: number) {
    super(`its top-level code did not finish within ${ms / 1000} s (a top-level await that never settles?)`);
  }
}

/**
 * import(url), failing instead of hanging when the module's top-level code does not finish within `ms`, and
 * instead of exiting when it calls process.exit (the call throws inside the module, so the import rejects).
 */
export async function importBounded(url: string, ms = SCENARIO_LOAD_MS): Promise<{ default?: unknown }> {
  const exit = process.exit;
  process.exit = ((code?: unknown) => {
    throw new ExitWhileLoadingError(code);
  }) as typeof process.exit;
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>((_, reject) => {
      // Note: this timer is what keeps the process alive while the module's await is pending
      timer = setTimeout(() => reject(new SlowLoadError(ms)), ms);
    });
    return (await Promise.race([import(url), late])) as { default?: unknown };
  } finally {
    clearTimeout(timer);
    process.exit = exit;
  }
}
