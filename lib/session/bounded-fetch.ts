// A size bound on what a releases site (or a mirror) may send for one file (Q253). lib/builds/http.ts reads each body
// whole (`arrayBuffer()`) within a deadline of 60 s (15 min for the zip), so a mirror that sent bytes without end grew
// the process by ~130 MB/s on loopback until it died. The HTTP call stays in lib/builds/http.ts: this wraps the Fetch
// it is handed (BuildContext.fetch) and ends a body past the bound with an error that names it.
import type { Fetch } from '../builds/http.js';

const MIB = 1024 * 1024;
/** A release zip: Nomad's linux_amd64 zips are ~50 MiB; five times that is still a release, more is not. */
const ZIP_LIMIT_BYTES = 256 * MIB;
/** SHA256SUMS, its .sig and index.json: kilobytes (index.json ~2 MiB with every version listed). */
const SMALL_FILE_LIMIT_BYTES = 16 * MIB;

/** The bound for one URL: a zip's, or a small file's. */
const limitFor = (url: string): number =>
  new URL(url).pathname.endsWith('.zip') ? ZIP_LIMIT_BYTES : SMALL_FILE_LIMIT_BYTES;

const tooLarge = (url: string, limit: number, got: string): Error =>
  new Error(
    `the server sent ${got} for ${new URL(url).pathname.split('/').pop() || url}, more than any release file ` +
      `(${limit / MIB} MiB at most): not read further (a mirror that is not a releases layout, or a broken one)`,
  );

/** `inner` with every response body cut at `limitFor(url)`: past it the body's read fails and the request is aborted. */
export function boundedFetch(inner: Fetch = globalThis.fetch, limit: (url: string) => number = limitFor): Fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const max = limit(url);
    const stop = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, stop.signal]) : stop.signal;
    const res = await inner(input, { ...init, signal });
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > max) {
      const err = tooLarge(url, max, `a length of ${declared} bytes`);
      stop.abort(err);
      throw err;
    }
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          seen += chunk.byteLength;
          if (seen <= max) return out.enqueue(chunk);
          const err = tooLarge(url, max, `more than ${max / MIB} MiB`);
          out.error(err);
          stop.abort(err);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
