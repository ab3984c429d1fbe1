// Console progress: turns log events into lines. Plain timestamped lines in CI or without a TTY; --verbose adds commands.
import type { LogEvent, Logger } from './events.js';
import { formatMs } from '../errors.js';
import { redact } from './redact.js';

export interface FormatOptions {
  verbose: boolean;
  quiet: boolean;
  /** colour and ✓/✗ marks (a TTY without NO_COLOR and not CI) */
  color: boolean;
  secrets: readonly string[];
}

const C = { dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', reset: '\x1b[0m' };

/** Format one event as a line, or undefined when it is not shown at this verbosity. */
export function formatEvent(e: LogEvent, o: FormatOptions): string | undefined {
  if (o.quiet) return undefined;
  const paint = (c: keyof typeof C, s: string) => (o.color ? `${C[c]}${s}${C.reset}` : s);
  const t = `[${clock(e.t)}]`;
  switch (e.kind) {
    case 'step':
      if (e.phase === 'start') return `${t} ${paint('dim', '…')} ${e.name}`;
      if (e.status === 'passed') return `${t} ${paint('green', 'ok')} ${e.name} (${formatMs(e.durationMs ?? 0)})`;
      if (e.status === 'skipped') return `${t} ${paint('yellow', 'skip')} ${e.name}: ${e.message ?? ''}`;
      return `${t} ${paint('red', 'FAIL')} ${e.name}: ${e.message ?? ''}`;
    case 'wait':
      return `${t}     waiting for ${e.what}: ${e.reason}`;
    case 'cleanup':
      return `${t} ${e.ok ? 'cleaned up' : paint('red', 'cleanup failed:')} ${e.what}${e.message ? `: ${e.message}` : ''}`;
    case 'info':
      return `${t} ${e.message}`;
    case 'warn':
      return `${t} ${paint('yellow', 'warning:')} ${e.message}`;
    case 'cmd':
      return o.verbose ? `${t}     $ ${e.command}${e.exitCode !== undefined ? ` -> ${e.exitCode} (${formatMs(e.durationMs ?? 0)})` : ''}` : undefined;
    case 'ssh':
      if (!o.verbose) return undefined;
      if (e.output !== undefined) return `${t}     ${e.machine}| ${e.output}`;
      return `${t}     ${e.machine}$ ${e.command}${e.exitCode !== undefined ? ` -> ${e.exitCode} (${formatMs(e.durationMs ?? 0)})` : ''}`;
    case 'http':
      return o.verbose ? `${t}     ${e.method} ${e.path}${e.status !== undefined ? ` -> ${e.status}` : ''}` : undefined;
  }
}

/** A Logger writing formatted, redacted lines to `write`. */
export function consoleLogger(write: (line: string) => void, o: FormatOptions): Logger {
  return (e) => {
    const line = formatEvent(e, o);
    if (line !== undefined) write(redact(line, o.secrets) + '\n');
  };
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
