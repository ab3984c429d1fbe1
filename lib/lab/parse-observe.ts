// Pure parsers for the probes in observe.ts.
import type { HttpProbe } from '../checks/types.js';

export interface BootInfo {
  bootId: string;
  uptimeS: number | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Parse `cat boot_id /proc/uptime`: a UUID line then "12345.67 2345.67". */
export function parseBootInfo(text: string): BootInfo {
  const [id = '', up = ''] = text.trim().split('\n');
  if (!UUID.test(id.trim())) throw new Error(`expected a boot_id UUID on the first line, got ${JSON.stringify(text.slice(0, 80))}`);
  // Note: a missing or garbled uptime line is "unknown", never 0 (0 would read as "uptime restarted").
  const first = up.trim().split(/\s+/)[0] ?? '';
  return { bootId: id.trim(), uptimeS: /^\d+(\.\d+)?$/.test(first) ? Number(first) : undefined };
}

/** Turn curl's exit code, `-w '%{http_code}'` output and stderr into an HttpProbe (2xx/3xx = ok). */
export function parseCurlProbe(from: string, url: string, code: number, stdout: string, stderr: string): HttpProbe {
  const status = /^\d{3}$/.test(stdout.trim()) ? Number(stdout.trim()) : undefined;
  const answered = status !== undefined && status !== 0;
  const ok = code === 0 && answered && status! < 400;
  const error = ok ? undefined : stderr.trim().split('\n').pop() || (answered ? `HTTP ${status}` : code === 0 ? `expected an HTTP status from curl -w '%{http_code}', got ${JSON.stringify(stdout.slice(0, 40))}` : `curl exited ${code}`);
  return { from, url, ok, status: answered ? status : undefined, error };
}
