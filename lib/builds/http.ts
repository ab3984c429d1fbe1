// The one place lib/builds speaks HTTP: GET a file from the releases site (or a mirror) within a deadline.
import { performance } from 'node:perf_hooks';
import { EXIT, HarnessError, TimeoutError } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';

/** fetch as the builds adapter uses it; tests and callers may hand in their own. */
export type Fetch = typeof globalThis.fetch;

/** The server could not be reached at all (refused, DNS, TLS, reset, deadline): exit 3, naming the alternatives. */
class ReleasesUnreachableError extends HarnessError {
  constructor(url: string, why: string, cause?: unknown) {
    super(`cannot reach the releases site for ${url}: ${why}`, {
      exitCode: EXIT.INFRA,
      hint:
        'point --releases-url (NOMAD_RELEASES_URL) at a reachable mirror with the same layout, ' +
        'or give a local build instead: a path to a linux/amd64 nomad binary, or git:<nomad source dir>[@<ref>]',
      cause,
    });
  }
}

/** GET `url`; any HTTP status comes back (the caller decides what a 404 means), a network failure throws. */
export async function httpGet(
  url: string,
  opts: { deadline: Deadline; fetch?: Fetch; logger?: Logger },
): Promise<{ status: number; body: Buffer }> {
  const { deadline, fetch = globalThis.fetch, logger } = opts;
  const started = performance.now();
  let res: Response;
  let body: Buffer;
  try {
    res = await fetch(url, { signal: deadline.signal, redirect: 'follow' });
    body = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    const reason: unknown = deadline.signal.reason;
    if (deadline.signal.aborted && reason !== undefined && !(reason instanceof TimeoutError)) throw reason;
    const why = deadline.signal.aborted ? 'no answer before the deadline' : networkReason(err);
    throw new ReleasesUnreachableError(url, why, err);
  }
  const path = new URL(url).pathname;
  logger?.({
    kind: 'http',
    t: Math.round(performance.now()),
    method: 'GET',
    path,
    status: res.status,
    durationMs: performance.now() - started,
  });
  return { status: res.status, body };
}

/** The useful part of a fetch failure: undici hides the errno (ECONNREFUSED, ENOTFOUND) in `cause`. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const more = cause?.message && cause.code && !cause.message.includes(cause.code) ? ` (${cause.message})` : '';
  if (cause?.code) return `${cause.code}${more}`;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}
