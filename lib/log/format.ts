// Console progress: turns log events into lines. Plain timestamped lines in CI or without a TTY; --verbose adds commands.
import { painter } from './ansi.js';
import type { LogEvent, Logger } from './events.js';
import { formatMs } from '../errors.js';
import { stepValuesText } from '../model/run.js';
import { performance } from 'node:perf_hooks';

interface FormatOptions {
  verbose: boolean;
  quiet: boolean;
  /** colour and ✓/✗ marks (a TTY without NO_COLOR and not CI) */
  color: boolean;
}

/** Format one event as a line, or undefined when it is not shown at this verbosity. */
export function formatEvent(e: LogEvent, o: FormatOptions): string | undefined {
  if (o.quiet) return undefined;
  const paint = painter(o.color);
  const t = `[${clock(e.t)}]`;
  switch (e.kind) {
    case 'step': {
      const name = shownStepName(e);
      if (e.phase === 'start') return `${t} ${paint('dim', '…')} ${name}`;
      if (e.status === 'passed') return `${t} ${paint('green', 'ok')} ${name} (${formatMs(e.durationMs ?? 0)})`;
      if (e.status === 'skipped') return `${t} ${paint('yellow', 'skip')} ${name}: ${e.message ?? ''}`;
      return `${t} ${paint('red', 'FAIL')} ${name}: ${e.message ?? ''}`;
    }
    case 'wait':
      return `${t}     waiting for ${e.what}: ${e.reason}`;
    case 'cleanup':
      return `${t} ${e.ok ? 'cleaned up' : paint('red', 'cleanup failed:')} ${e.what}${e.message ? `: ${e.message}` : ''}`;
    case 'info':
      return `${t} ${e.message}`;
    case 'warn':
      return `${t} ${paint('yellow', 'warning:')} ${e.message}`;
    case 'cmd':
      return o.verbose
        ? `${t}     $ ${e.command}${e.exitCode !== undefined ? ` -> ${e.exitCode} (${formatMs(e.durationMs ?? 0)})` : ''}`
        : undefined;
    case 'ssh':
      if (!o.verbose) return undefined;
      if (e.output !== undefined) return `${t}     ${e.machine}| ${e.output}`;
      return `${t}     ${e.machine}$ ${e.command}${e.exitCode !== undefined ? ` -> ${e.exitCode} (${formatMs(e.durationMs ?? 0)})` : ''}`;
    case 'http':
      return o.verbose ? `${t}     ${e.method} ${e.path}${e.status !== undefined ? ` -> ${e.status}` : ''}` : undefined;
    case 'output':
      return o.verbose ? `${t}     ${e.source}| ${e.line}` : undefined;
  }
}

/** A step as the console shows it: its fixed name, then this run's values in brackets ("register the job [job web]"). */
function shownStepName(e: { name: string; values?: Record<string, string> | undefined }): string {
  const v = stepValuesText(e.values);
  return v ? `${e.name} [${v}]` : e.name;
}

/** The live line's longest length on a terminal: a longer one wraps, and `\r` then redraws only its last row. */
const LIVE_LINE_MAX = 100;

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How often the spinner line is redrawn on a terminal. */
const SPIN_MS = 120;

/**
 * A Logger writing formatted lines to `write` (the CLI's console stream, which redacts: lib/log/redact.ts). On a terminal (`color`) the running step is one live
 * line with a spinner and its elapsed time, replaced by the step's result line; elsewhere every line is plain.
 * Note: each line is stamped with the time since this logger was made (the command's start), not the event's own
 * `t`: events come from clocks that start at different moments (a run's start, the process's, 0), and mixing them
 * made teardown lines jump backwards.
 */
export function consoleLogger(
  write: (line: string) => void,
  o: FormatOptions,
  clockNow: () => number = () => performance.now(),
): Logger {
  const spinner = o.color && !o.quiet;
  const start = clockNow();
  let running: { name: string; since: number; frame: number; timer: NodeJS.Timeout; waiting?: string } | undefined;
  const clear = () => running && write('\r\x1b[2K');
  const draw = () => {
    if (!running) return;
    running.frame = (running.frame + 1) % FRAMES.length;
    const head = `${FRAMES[running.frame]} ${running.name} (${formatMs(clockNow() - running.since)})`;
    const line = running.waiting ? `${head}: ${running.waiting}` : head;
    write(`\r\x1b[2K${line.length > LIVE_LINE_MAX ? `${line.slice(0, LIVE_LINE_MAX - 1)}…` : line}`);
  };
  const stop = () => {
    if (!running) return;
    clearInterval(running.timer);
    clear();
    running = undefined;
  };
  return (e) => {
    const line = formatEvent({ ...e, t: clockNow() - start }, o);
    if (spinner && e.kind === 'step' && e.phase === 'start') {
      stop();
      running = { name: shownStepName(e), since: clockNow(), frame: 0, timer: setInterval(draw, SPIN_MS) };
      running.timer.unref();
      draw();
      return;
    }
    if (spinner && e.kind === 'step' && e.phase === 'end') stop();
    // Note: a wait repeats its line every few seconds (a reboot's SSH probe); on a terminal it updates the running
    // step's live line instead of scrolling. Without a terminal (CI logs) each stays a line of its own.
    if (spinner && e.kind === 'wait' && running) {
      running.waiting = `waiting for ${e.what}: ${e.reason}`;
      draw();
      return;
    }
    if (line === undefined) return;
    clear();
    write(`${line}\n`);
    draw();
  };
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
