// Progress of a long build on the console: numbered phases with elapsed time, and a heartbeat while one runs long.
import { performance } from 'node:perf_hooks';
import { formatMs, InterruptedError } from '../errors.js';
import type { Logger } from '../log/events.js';

/** How often a running phase says it is still running (a Nomad compile takes minutes). */
const HEARTBEAT_MS = 30_000;

interface Phases {
  /** run one phase: "[2/5] name", then "[2/5] name: done in 12.3s" (or the error propagates, after a line) */
  run<T>(name: string, fn: (note: (s: string) => void) => Promise<T>): Promise<T>;
  /** total time so far */
  elapsed(): string;
}

/** Phases of `label` (e.g. the spec), `total` of them, logged as info events. */
export function phases(
  logger: Logger,
  label: string,
  total: number,
  o: { heartbeatMs?: number; t?: () => number; signal?: AbortSignal } = {},
): Phases {
  const { heartbeatMs = HEARTBEAT_MS, t = () => 0, signal } = o;
  const started = performance.now();
  let n = 0;
  const say = (message: string) => logger({ kind: 'info', t: t(), message: `${label}: ${message}` });
  return {
    async run(name, fn) {
      const tag = `[${++n}/${total}] ${name}`;
      const t0 = performance.now();
      let status = '';
      say(`${tag} …`);
      const since = () => formatMs(performance.now() - t0);
      const beat = setInterval(() => say(`${tag}: running for ${since()}${status ? `, ${status}` : ''}`), heartbeatMs);
      beat.unref();
      try {
        const r = await fn((s) => {
          status = s;
        });
        say(`${tag}: done in ${formatMs(performance.now() - t0)}${status ? ` (${status})` : ''}`);
        return r;
      } catch (err) {
        // a phase a signal stopped did not fail: the build was interrupted (Ctrl-C, SIGTERM)
        const stopped = signal?.aborted && signal.reason instanceof InterruptedError;
        say(
          `${tag}: ${stopped ? 'stopped' : 'failed'} after ${formatMs(performance.now() - t0)}${stopped ? ' (interrupted)' : ''}`,
        );
        throw err;
      } finally {
        clearInterval(beat);
      }
    },
    elapsed: () => formatMs(performance.now() - started),
  };
}
