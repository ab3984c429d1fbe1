// Errors raised by the Nomad client: an API answer that was not 2xx, or Nomad not reachable.
import { EXIT, HarnessError, formatMs, type ExitCode } from '../errors.js';

/** Longest slice of an error body kept in messages (Nomad error bodies are short plain text). */
const MAX_ERROR_BODY = 500;

/** Nomad answered with a non-2xx status. `body` is the plain-text error Nomad wrote (truncated). */
export class NomadApiError extends HarnessError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
  /** how often the call was made and over how long, when a 5xx answer was retried (nomad.retry_for) */
  readonly retried: { attempts: number; forMs: number } | undefined;
  constructor(
    method: string,
    path: string,
    status: number,
    body: string,
    retried?: { attempts: number; forMs: number },
  ) {
    const text = truncate(body.trim(), MAX_ERROR_BODY);
    const again = retried
      ? ` (the last of ${retried.attempts} answers over ${formatMs(retried.forMs)}: nomad.retry_for, --nomad-retry-for)`
      : '';
    super(`Nomad API ${method} ${path}: HTTP ${status}${text ? `: ${text}` : ''}${again}`, {
      exitCode: exitCodeFor(method, path, status, body),
      ...(refusesJob(method, path, status, body)
        ? { hint: 'Nomad refused the job as invalid: fix the job file where Nomad says' }
        : hintFor(status)),
    });
    this.method = method;
    this.path = path;
    this.status = status;
    this.body = text;
    this.retried = retried;
  }
}

/** Nomad could not be reached at all (refused, reset, aborted): the lab, not Nomad, is at fault. */
export class NomadUnreachableError extends HarnessError {
  readonly method: string;
  readonly path: string;
  constructor(method: string, path: string, addr: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`Nomad API ${method} ${path}: cannot reach ${addr}: ${why}`, {
      exitCode: EXIT.INFRA,
      hint: 'is the Nomad agent running and the tunnel to it open?',
      cause,
    });
    this.method = method;
    this.path = path;
  }
}

/**
 * Nomad refused a job it was asked to register as invalid. It answers 500 for that (e.g. "Task group web validation
 * failed: … log storage (100 MB) must be less than requested disk capacity (100 MB)", real 2.0.5): the job file is at
 * fault, asking again cannot help.
 */
export function refusesJob(method: string, path: string, status: number, body: string): boolean {
  return (
    (method === 'POST' || method === 'PUT') && path === '/v1/jobs' && status === 500 && /validation failed/.test(body)
  );
}

// Note: a bad token (403) or a rejected jobspec (400 from parse/register, a 500 naming a validation failure) is the
// user's configuration, not broken infrastructure, so they exit 2 and waits stop at once.
function exitCodeFor(method: string, path: string, status: number, body: string): ExitCode {
  if (status === 403 || refusesJob(method, path, status, body)) return EXIT.USAGE;
  if (status === 400 && method === 'POST' && (path === '/v1/jobs/parse' || path === '/v1/jobs')) return EXIT.USAGE;
  return EXIT.INFRA;
}

function hintFor(status: number): { hint?: string } {
  if (status === 403)
    return {
      hint: 'the ACL token is missing or lacks a policy for this endpoint: set NOMAD_TOKEN (or nomad.token) to a token with the needed capabilities',
    };
  if (status >= 500) return { hint: 'the Nomad agent failed to answer; see its log (journalctl -u nomad)' };
  return {};
}

/** Cut `s` to `max` characters, marking the cut. */
export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more chars)`;
}
