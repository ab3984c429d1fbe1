// Is a resolved build a Nomad this harness can install? A Linux x86-64 ELF that answers `version` like Nomad.
import { ConfigError, CommandError } from '../errors.js';
import { inspectNomadBinary } from './binary.js';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import type { ExecResult } from '../model/lab.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';
import { tailLines } from '../exec/escape.js';
import { parseNomadVersion, type NomadVersion } from '../parse/go-tools.js';

/** How long `nomad version` may take: it prints and exits at once; 15 s allows a cold disk under load. */
const VERSION_TIMEOUT_MS = 15_000;

const FIX =
  'give a linux/amd64 Nomad build: a release version (1.9.7), a source tree git:<dir>[@<ref>], ' +
  'or the path of a nomad binary';

/**
 * Check `path` as a Nomad build: the ELF header (lib/builds/binary.ts), then run `<path> version` on this host within
 * a deadline and read its version and revision. Any failure is a ConfigError (exit 2) naming `field` and `spec`.
 */
export async function preflightBuild(
  path: string,
  o: { field: string; spec: string; run?: RunCommand; logger?: Logger; deadline?: Deadline; timeoutMs?: number },
): Promise<NomadVersion> {
  const { field, spec, run = runCommand, logger, timeoutMs = VERSION_TIMEOUT_MS } = o;
  const fail = (message: string, fix = FIX) => new ConfigError([{ field, value: spec, message, fix }]);
  const elf = await inspectNomadBinary(path);
  if (!elf.ok) throw fail(elf.reason);
  let out: ExecResult;
  try {
    out = await run(path, ['version'], {
      deadline: deadlineIn(timeoutMs, o.deadline),
      logger,
      allowedCodes: ANY_EXIT_CODE,
      env: { NOMAD_ADDR: undefined, NOMAD_TOKEN: undefined },
    });
  } catch (err) {
    if (err instanceof CommandError) {
      const how = err.timedOut ? `did not finish \`version\` within ${timeoutMs / 1000} s` : err.message;
      throw fail(`${path}: ${how}`);
    }
    throw err;
  }
  if (out.code !== 0) {
    const tail = tailLines(out.stderr || out.stdout, 3).replace(/\n/g, ' | ');
    throw fail(`${path}: \`version\` exited ${out.code}${tail ? ` (${tail})` : ''}; a Nomad build prints its version`);
  }
  const v = parseNomadVersion(out.stdout);
  if ('error' in v) throw fail(`${path}: ${v.error}`);
  return v;
}
