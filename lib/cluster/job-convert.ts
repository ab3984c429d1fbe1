// The user's job file as Nomad's JSON, converted on the host by the Nomad build itself (`nomad job run -output`, which
// parses locally and submits nothing), before any VM exists: a file Nomad cannot parse is reported in Nomad's words.
import { CommandError } from '../errors.js';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import type { ExecResult } from '../model/lab.js';
import { deadlineIn } from '../time/deadlines.js';

/** The outcome of one conversion: Nomad's JSON job, or the message Nomad printed. */
type ConvertResult = { ok: true; job: unknown } | { ok: false; message: string };

/** Convert a job file to JSON with a Nomad build; injectable (the stand-in tier has no Nomad binary on the host). */
export type JobConverter = (o: {
  nomadBinary: string;
  file: string;
  vars: Record<string, string | number | boolean>;
}) => Promise<ConvertResult>;

/** How long parsing one job file may take (a local parse; seconds at most). */
const CONVERT_TIMEOUT_MS = 30_000;

/** The -var flags for HCL variables, in a stable order. */
export function varFlags(vars: Record<string, string | number | boolean>): string[] {
  return Object.keys(vars)
    .sort()
    .flatMap((k) => ['-var', `${k}=${String(vars[k])}`]);
}

/** Nomad's own message from its stderr: the lines after "Error getting job struct:", whitespace kept short. */
export function nomadMessage(stderr: string, stdout: string): string {
  const text = (stderr.trim() || stdout.trim()).replace(/\n{2,}/g, '\n');
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' | ') || 'nomad printed nothing'
  );
}

/** The converter that runs `<nomadBinary> job run -output [-var k=v ...] <file>` through lib/exec with a deadline. */
export function nomadJobConverter(run: RunCommand = runCommand): JobConverter {
  return async ({ nomadBinary, file, vars }) => {
    let r: ExecResult;
    try {
      // Note: -output never contacts an agent; NOMAD_ADDR is pinned to loopback so nothing leaves this host anyway,
      // and the build under test gets no ACL token it has no use for (an undefined value leaves it out of the env).
      r = await run(nomadBinary, ['job', 'run', '-output', ...varFlags(vars), file], {
        deadline: deadlineIn(CONVERT_TIMEOUT_MS),
        allowedCodes: ANY_EXIT_CODE,
        env: { NOMAD_ADDR: 'http://127.0.0.1:4646', NOMAD_TOKEN: undefined },
      });
    } catch (err) {
      const why =
        err instanceof CommandError ? err.message.split('\n')[0] : err instanceof Error ? err.message : String(err);
      return { ok: false, message: `could not run ${nomadBinary} on this host to parse the job: ${why}` };
    }
    if (r.code !== 0) return { ok: false, message: nomadMessage(r.stderr, r.stdout) };
    try {
      return { ok: true, job: JSON.parse(r.stdout) as unknown };
    } catch {
      return { ok: false, message: `nomad job run -output printed no JSON: ${r.stdout.slice(0, 200)}` };
    }
  };
}
