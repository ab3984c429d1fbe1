// Pure parsers: the probe's framed output line, then the CNI plugin's JSON result or error.
import { HarnessError } from '../errors.js';

/** What one ADD/DEL did: the addresses handed out, or the plugin's error (code 999 = generic plugin error). */
export type CniOutcome =
  | { ok: true; ips: string[]; exitCode: number }
  | { ok: false; code: number | undefined; msg: string; details: string; exitCode: number; stderr: string };

const LINE = /^CNI-PROBE rc=(\d+) stdout=([A-Za-z0-9+/]*={0,2}) stderr=([A-Za-z0-9+/]*={0,2})$/m;

/** Parse cni-probe.sh's `CNI-PROBE rc=… stdout=… stderr=…` line (base64 fields) and the plugin JSON inside. */
export function parseProbeOutput(text: string): CniOutcome {
  const m = LINE.exec(text);
  if (!m)
    throw new HarnessError(
      `cni-probe output: expected a line "CNI-PROBE rc=<n> stdout=<base64> stderr=<base64>", got ${JSON.stringify(text.slice(0, 200))}`,
    );
  const exitCode = Number(m[1]);
  const stdout = Buffer.from(m[2]!, 'base64').toString('utf8');
  const stderr = Buffer.from(m[3]!, 'base64').toString('utf8');
  return parseCniResult(stdout, exitCode, stderr);
}

/** Interpret a CNI plugin's stdout: a result with `ips[].address`, or an error `{code, msg, details}`. */
export function parseCniResult(stdout: string, exitCode: number, stderr = ''): CniOutcome {
  let json: unknown;
  try {
    json = stdout.trim() === '' ? undefined : JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  const obj = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : undefined;
  if (exitCode === 0 && obj && Array.isArray(obj.ips)) {
    const ips = obj.ips
      .map((ip) => (typeof ip === 'object' && ip !== null ? (ip as Record<string, unknown>).address : undefined))
      .filter((a): a is string => typeof a === 'string');
    return { ok: true, ips, exitCode };
  }
  if (obj && typeof obj.msg === 'string') {
    return {
      ok: false,
      code: typeof obj.code === 'number' ? obj.code : undefined,
      msg: obj.msg,
      details: typeof obj.details === 'string' ? obj.details : '',
      exitCode,
      stderr,
    };
  }
  const why = exitCode === 0 ? 'exit 0 but no "ips" in the result' : `exit ${exitCode} without a JSON error`;
  return {
    ok: false,
    code: undefined,
    msg: `${why}: ${(stdout || stderr).trim().slice(0, 300) || '(no output)'}`,
    details: '',
    exitCode,
    stderr,
  };
}

/** One line for evidence: "ok 172.26.64.2/20" or "error 999: …". */
export function describeOutcome(o: CniOutcome | undefined): string {
  if (!o) return '(not run)';
  return o.ok ? `ok ${o.ips.join(', ') || '(no address)'}` : `error ${o.code ?? `exit ${o.exitCode}`}: ${o.msg}`;
}
