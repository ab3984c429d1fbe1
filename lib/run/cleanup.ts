// Cleanup registered before anything is created, run last-in-first-out exactly once, errors collected.
import type { Logger } from '../log/events.js';

interface Entry {
  what: string;
  fn: () => Promise<void>;
}

export interface CleanupFailure {
  what: string;
  error: unknown;
}

/** A LIFO stack of async teardown functions (an AsyncDisposableStack in spirit). */
export class CleanupStack {
  private entries: Entry[] = [];
  private running: Promise<CleanupFailure[]> | undefined;
  constructor(private readonly logger: Logger = () => {}, private readonly now: () => number = () => 0) {}

  /** Register `fn` under a name; returns a function that removes it (when the thing was torn down already). */
  defer(what: string, fn: () => Promise<void>): () => void {
    const entry = { what, fn };
    this.entries.push(entry);
    return () => {
      this.entries = this.entries.filter((e) => e !== entry);
    };
  }

  /** Names of pending entries, newest first (for --keep messages). */
  pending(): string[] {
    return this.entries.map((e) => e.what).reverse();
  }

  /** Forget every entry without running it (--keep). */
  release(): string[] {
    const names = this.pending();
    this.entries = [];
    return names;
  }

  /** Run every entry newest first; a failing entry does not stop the rest. Idempotent: a second call waits for the first. */
  run(): Promise<CleanupFailure[]> {
    this.running ??= (async () => {
      const failures: CleanupFailure[] = [];
      while (this.entries.length) {
        const e = this.entries.pop()!;
        try {
          await e.fn();
          this.logger({ kind: 'cleanup', t: this.now(), what: e.what, ok: true });
        } catch (error) {
          failures.push({ what: e.what, error });
          this.logger({ kind: 'cleanup', t: this.now(), what: e.what, ok: false, message: error instanceof Error ? error.message : String(error) });
        }
      }
      return failures;
    })();
    return this.running;
  }
}
