// `nomad alloc exec` of a trivial command into one task, run on a machine of the lab with Nomad's CLI (it speaks the
// exec stream API, /v1/client/allocation/<id>/exec, a WebSocket Node 20 has no client for without a flag), and its pure
// parser.
import { quote } from '../shell/quote.js';

/**
 * The command run inside the task: a shell that exits 0. Every exec chroot (copied from the host) and nearly every
 * image has /bin/sh; the busybox image the docker variant builds has no /bin/true (real 1.9.3 and 1.9.7: "stat
 * /bin/true: no such file or directory", exit 126).
 */
export const EXEC_PROBE_COMMAND = ['/bin/sh', '-c', 'exit 0'] as const;

/** What `timeout` exits with when the command ran out of time. */
const TIMED_OUT = 124;

/**
 * A POSIX sh command running `nomad alloc exec` without stdin or a TTY, bounded by `timeoutS`, that prints its output
 * and a last line `EXIT <code>`. With `withToken` the ACL token is read from stdin into NOMAD_TOKEN, so it is never on a
 * command line (which the harness logs) or in the evidence.
 */
export function allocExecCommand(o: {
  nomad: string;
  allocId: string;
  task: string;
  timeoutS: number;
  withToken: boolean;
}): string {
  const exec = [
    'timeout',
    String(o.timeoutS),
    o.nomad,
    'alloc',
    'exec',
    '-i=false',
    '-t=false',
    '-task',
    o.task,
    o.allocId,
    ...EXEC_PROBE_COMMAND,
  ];
  const token = o.withToken ? 'IFS= read -r NOMAD_TOKEN; export NOMAD_TOKEN; ' : '';
  return `sh -c ${quote(`${token}"$@" 2>&1; echo "EXIT $?"`)} sh ${exec.map(quote).join(' ')}`;
}

/** What one exec probe showed. */
interface AllocExecResult {
  ok: boolean;
  exitCode: number | undefined;
  /** the output without the EXIT line, its last lines only */
  output: string;
}

/** Parse allocExecCommand's output; a missing EXIT line (the SSH command itself failed) is a failure with no code. */
export function parseAllocExec(stdout: string, timeoutS: number): AllocExecResult {
  const lines = stdout.replace(/\s+$/, '').split('\n');
  const m = /^EXIT (\d+)$/.exec(lines.at(-1) ?? '');
  const body = (m ? lines.slice(0, -1) : lines)
    .filter((l) => l.trim() !== '')
    .slice(-5)
    .join('\n');
  if (!m) return { ok: false, exitCode: undefined, output: body || 'no EXIT line: the command did not run to its end' };
  const code = Number(m[1]);
  if (code === TIMED_OUT)
    return { ok: false, exitCode: undefined, output: `${body ? `${body}\n` : ''}no answer within ${timeoutS}s` };
  return { ok: code === 0, exitCode: code, output: body };
}
