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

const MIB = 1024 * 1024;
/** A release zip: Nomad's linux_amd64 zips are ~50 MiB; five times that is still a release, more is not. */
export const ZIP_MAX_BYTES = 256 * MIB;
/** SHA256SUMS, its .sig and index.json: kilobytes (index.json ~2 MiB with every version listed). */
const SMALL_FILE_MAX_BYTES = 16 * MIB;

/** The server sent more for one file than any release file is (Q253): exit 3, not read further. */
class ReleaseFileTooLargeError extends HarnessError {
  constructor(url: string, max: number, got: string) {
    const name = new URL(url).pathname.split('/').pop() || url;
    super(
      `${url}: the server sent ${got} for ${name}, more than any release file (${max / MIB} MiB at most): not read ` +
        'further (a mirror that is not a releases layout, or a broken one)',
      {
        exitCode: EXIT.INFRA,
        hint: 'point --releases-url (NOMAD_RELEASES_URL) at a mirror with the releases layout, or give a local build',
      },
    );
  }
}

/**
 * GET `url`; any HTTP status comes back (the caller decides what a 404 means), a network failure throws. The body is
 * read up to `maxBytes` (16 MiB; ZIP_MAX_BYTES for a zip): a declared length past it, or the bytes past it, end the
 * request with ReleaseFileTooLargeError, so a mirror that sends without end costs at most the bound in memory.
 */
export async function httpGet(
  url: string,
  opts: { deadline: Deadline; fetch?: Fetch; logger?: Logger; maxBytes?: number },
): Promise<{ status: number; body: Buffer }> {
  const { deadline, fetch = globalThis.fetch, logger, maxBytes = SMALL_FILE_MAX_BYTES } = opts;
  const started = performance.now();
  const stop = new AbortController();
  let res: Response;
  let body: Buffer;
  try {
    res = await fetch(url, { signal: AbortSignal.any([deadline.signal, stop.signal]), redirect: 'follow' });
    body = await boundedBody(res, url, maxBytes, stop);
  } catch (err) {
    if (err instanceof ReleaseFileTooLargeError) throw err;
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

/** `res`'s body counted as it comes; past `max` the read is cancelled and the request aborted (`stop`). */
async function boundedBody(res: Response, url: string, max: number, stop: AbortController): Promise<Buffer> {
  const tooLarge = (got: string) => {
    const err = new ReleaseFileTooLargeError(url, max, got);
    stop.abort(err);
    return err;
  };
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > max) throw tooLarge(`a length of ${declared} bytes`);
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, seen);
    seen += value.byteLength;
    if (seen > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${max / MIB} MiB`);
    }
    chunks.push(value);
  }
}

/** The useful part of a fetch failure: undici hides the errno (ECONNREFUSED, ENOTFOUND) in `cause`. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const more = cause?.message && cause.code && !cause.message.includes(cause.code) ? ` (${cause.message})` : '';
  if (cause?.code) return `${cause.code}${more}`;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}
