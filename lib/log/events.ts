// Logging is typed events; formatting and redaction live elsewhere (lib/log/format.ts, redact.ts).

/** One thing that happened during a run. `t` is milliseconds since the run started. */
export type LogEvent =
  | {
      kind: 'step';
      t: number;
      phase: 'start' | 'end';
      name: string;
      status?: 'passed' | 'failed' | 'error' | 'skipped';
      durationMs?: number;
      message?: string;
      /** the step's values (StepRecord.values), shown beside its fixed name */
      values?: Record<string, string>;
    }
  | { kind: 'cmd'; t: number; command: string; exitCode?: number; durationMs?: number }
  | {
      kind: 'ssh';
      t: number;
      machine: string;
      command: string;
      exitCode?: number;
      durationMs?: number;
      output?: string;
    }
  | { kind: 'http'; t: number; method: string; path: string; status?: number; durationMs?: number }
  | { kind: 'wait'; t: number; what: string; reason: string }
  | { kind: 'cleanup'; t: number; what: string; ok: boolean; message?: string }
  | { kind: 'info' | 'warn'; t: number; message: string }
  /** a line a tool printed (Vagrant's UI): detail for --verbose only */
  | { kind: 'output'; t: number; source: string; line: string };

/** Receives log events. Implementations must not throw. */
export type Logger = (e: LogEvent) => void;

/** A logger that drops everything (tests, library defaults). */
export const silentLogger: Logger = () => {};
