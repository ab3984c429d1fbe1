// Cleanup registered before anything is created, run last-in-first-out exactly once, errors collected.
import type { Logger } from '../log/events.js';

interface Entry {
  what: string;
  fn: () => Promise<void>;
  /** runs with --keep too: it frees something of this process (a tunnel, a connection), never a VM */
  alsoWhenKept: boolean;
  /** what --keep leaves behind and how to reach it (a lab's ssh and destroy commands); `what` when absent */
  keptAs: (() => string) | undefined;
}

export interface CleanupFailure {
  what: string;
  error: unknown;
}

/** A LIFO stack of async teardown functions (an AsyncDisposableStack in spirit). */
export class CleanupStack {
  private entries: Entry[] = [];
  private running: Promise<CleanupFailure[]> | undefined;
  constructor(
    private readonly logger: Logger = () => {},
    private readonly now: () => number = () => 0,
  ) {}

  /**
   * Register `fn` under a name; returns a function that removes it (when the thing was torn down already).
   * `keptAs` describes what --keep leaves instead (the name says what teardown would do, e.g. "vagrant destroy -f").
   */
  defer(
    what: string,
    fn: () => Promise<void>,
    opts: { alsoWhenKept?: boolean; keptAs?: () => string } = {},
  ): () => void {
    const entry = { what, fn, alsoWhenKept: opts.alsoWhenKept ?? false, keptAs: opts.keptAs };
    this.entries.push(entry);
    return () => {
      this.entries = this.entries.filter((e) => e !== entry);
    };
  }

  /** Names of pending entries that --keep keeps, newest first (for --keep messages). */
  pending(): string[] {
    return this.entries
      .filter((e) => !e.alsoWhenKept)
      .map((e) => e.what)
      .reverse();
  }

  /**
   * --keep: forget every entry that would remove something the person wants to reach (VMs, their folder) and run the
   * ones that only free this process's own handles (tunnels, SSH connections), so it can exit. Returns what was kept,
   * newest first: each entry's `keptAs` description (never the name of the teardown that did not run) or its name.
   */
  async release(): Promise<string[]> {
    const kept = this.entries
      .filter((e) => !e.alsoWhenKept)
      .reverse()
      .map((e) => e.keptAs?.() ?? e.what);
    this.entries = this.entries.filter((e) => e.alsoWhenKept);
    await this.run();
    return kept;
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
          this.logger({
            kind: 'cleanup',
            t: this.now(),
            what: e.what,
            ok: false,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
      return failures;
    })();
    return this.running;
  }
}
