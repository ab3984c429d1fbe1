// One error hierarchy; exit codes are decided here and mapped in lib/cli/main.ts only.

/** Exit codes of the CLI (README "Exit codes"). */
export const EXIT = {
  /** every check met its expectation */
  OK: 0,
  /** at least one check did not meet its expectation */
  CHECK_FAILED: 1,
  /** usage or configuration error: nothing was created */
  USAGE: 2,
  /** infrastructure error (VM, SSH, Nomad unreachable) before a verdict could be reached */
  INFRA: 3,
  /** interrupted by SIGINT/SIGTERM (128 + SIGINT) */
  INTERRUPTED: 130,
  /** a bug in the harness itself */
  INTERNAL: 70,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Base class: every error the harness raises on purpose carries an exit code and a hint. */
export class HarnessError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  constructor(message: string, opts: { exitCode?: ExitCode; hint?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = opts.exitCode ?? EXIT.INFRA;
    this.hint = opts.hint;
  }
}

/** One problem in the configuration: names the field, the value received and the fix. */
export interface ConfigProblem {
  field: string;
  value: unknown;
  message: string;
  fix: string;
}

/** Bad input (flags, harness.yaml, environment). All problems are reported at once. */
export class ConfigError extends HarnessError {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[]) {
    super(
      problems.length === 1
        ? `invalid configuration: ${formatProblem(problems[0]!)}`
        : `invalid configuration (${problems.length} problems):\n` +
            problems.map((p) => `  - ${formatProblem(p)}`).join('\n'),
      { exitCode: EXIT.USAGE },
    );
    this.problems = problems;
  }
}

/** Render one config problem as `field: message (got X; fix: Y)`. */
export function formatProblem(p: ConfigProblem): string {
  return `${escapeControls(p.field)}: ${p.message} (got ${escapeControls(showValue(p.value))}; fix: ${p.fix})`;
}

/**
 * Control characters and bidirectional overrides as \uXXXX escapes: a key or value from a file must not set the
 * terminal's title, colour the line or reverse it.
 */
function escapeControls(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The longest value a problem echoes whole (escaped); a longer one is shown as its start and its length. */
const SHOWN_MAX = 120;

/** A problem's value already put into words (an excerpt), shown as it is instead of as JSON. */
class Shown {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

function showValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v instanceof Shown) return v.text;
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  if (text.length <= SHOWN_MAX) return text;
  // Note: a value this long is a file's content or a pasted blob, not a typo; its start says which.
  const head = typeof v === 'string' ? `${JSON.stringify(v.slice(0, 60)).slice(0, -1)}…"` : `${text.slice(0, 60)}…`;
  return `${head} (${typeof v === 'string' ? v.length : text.length} characters)`;
}

/**
 * A short, escaped excerpt of an input that is not what was asked for (a config file that is no mapping): what kind of
 * thing it is and its first characters, cut after a first "=" or ":" so a KEY=secret line shows its key only.
 */
export function excerptOf(v: unknown): Shown {
  if (typeof v === 'string') {
    const lines = v.split(/\r?\n|\0/).filter((l) => l !== '').length;
    const cut = /^[^=:\s]{0,24}[=:]?/.exec(v)![0];
    const head = cut.length ? `${JSON.stringify(cut).slice(0, -1)}…"` : 'nothing readable';
    return new Shown(`a text of ${lines} line${lines === 1 ? '' : 's'} (${v.length} characters) starting ${head}`);
  }
  if (Array.isArray(v)) return new Shown(`a list of ${v.length} item${v.length === 1 ? '' : 's'}`);
  return new Shown(showValue(v));
}

/** A local command (vagrant, virsh, ip) failed. Carries what execa tells us. */
export class CommandError extends HarnessError {
  readonly command: string;
  readonly code: number | undefined;
  readonly stderrTail: string;
  readonly timedOut: boolean;
  constructor(
    command: string,
    code: number | undefined,
    stderrTail: string,
    opts: { timedOut?: boolean; hint?: string; cause?: unknown } = {},
  ) {
    const how = opts.timedOut ? 'timed out' : code === undefined ? 'was killed' : `exited ${code}`;
    super(`command ${how}: ${command}${stderrTail ? `\n${indent(stderrTail)}` : ''}`, {
      exitCode: EXIT.INFRA,
      ...opts,
    });
    this.command = command;
    this.code = code;
    this.stderrTail = stderrTail;
    this.timedOut = opts.timedOut ?? false;
  }
}

/** A wait ran out of time. Says what it waited for and the last thing it saw. */
export class TimeoutError extends HarnessError {
  readonly what: string;
  readonly waitedMs: number;
  readonly last: string;
  constructor(what: string, waitedMs: number, last: string) {
    super(`waiting for ${what}: gave up after ${formatMs(waitedMs)}; last: ${last}`, { exitCode: EXIT.INFRA });
    this.what = what;
    this.waitedMs = waitedMs;
    this.last = last;
  }
}

/** A wait saw a terminal state it can never recover from (fail fast). */
export class TerminalStateError extends HarnessError {
  constructor(what: string, state: string) {
    super(`waiting for ${what}: reached terminal state: ${state}`, { exitCode: EXIT.INFRA });
  }
}

/** The run was interrupted by a signal. */
export class InterruptedError extends HarnessError {
  constructor(signal: string) {
    super(`interrupted by ${signal}`, { exitCode: EXIT.INTERRUPTED });
  }
}

/**
 * Format a duration for humans, the one formatter for every duration the harness prints: 850ms, 12.3s, 2m05s,
 * 1h02m03s. Never a raw float; rounding never gives "60s" or "1000ms".
 */
/** An error as a record shows it: its first line, and the whole text (a harness error's hint, else the stack). */
export function describeErr(err: unknown): { message: string; detail: string } {
  const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  const detail =
    err instanceof HarnessError
      ? [err.message, err.hint && `hint: ${err.hint}`].filter(Boolean).join('\n')
      : err instanceof Error
        ? (err.stack ?? err.message)
        : String(err);
  return { message, detail };
}

export function formatMs(ms: number): string {
  const v = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (v < 999.5) return `${Math.round(v)}ms`;
  if (v < 59_950) return `${(v / 1000).toFixed(1)}s`;
  const total = Math.round(v / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}h${two(m)}m${two(s)}s` : `${m}m${two(s)}s`;
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}
