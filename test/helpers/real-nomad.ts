// The e2e tier's inputs: real Nomad builds from NOMAD_BINARIES / NOMAD_BINARY, their versions, and what Nomad's
// history says each one must do (nomad-reference.md §4): the tmpfs fix landed in 1.9.4, the state migration in 1.9.7.
import { execFileSync } from 'node:child_process';

export interface Build {
  path: string;
  /** e.g. v1.9.3 */
  version: string;
  /** before 1.9.4: host-local state on disk, a reboot fails the restore with the duplicate-IP error */
  beforeTmpfsFix: boolean;
  /** 1.9.7 and later: the client migrates the on-disk state to tmpfs on its first start */
  migratesState: boolean;
  /** 1.9.5 and later (GH-24658): a restored alloc whose namespace exists gets a CNI CHECK, and a re-setup when it fails (the docker fix) */
  checksOnRestore: boolean;
}

/** [major, minor, patch] of "v1.9.3" / "1.9.3-dev"; zeros when unparsable. */
export function versionParts(version: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = version.replace(/^v/, '').split(/[.+-]/).map(Number);
  return [a || 0, b || 0, c || 0];
}

const atLeast = (v: string, [x, y, z]: [number, number, number]): boolean => {
  const [a, b, c] = versionParts(v);
  return a !== x ? a > x : b !== y ? b > y : c >= z;
};

export function classify(path: string, version: string): Build {
  return { path, version, beforeTmpfsFix: !atLeast(version, [1, 9, 4]), migratesState: atLeast(version, [1, 9, 7]), checksOnRestore: atLeast(version, [1, 9, 5]) };
}

/** The builds the e2e tier was given (in the order given), each asked for its version. */
export function buildsFromEnv(env: NodeJS.ProcessEnv = process.env): Build[] {
  const paths = (env['NOMAD_BINARIES'] ?? env['NOMAD_BINARY'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return paths.map((p) => classify(p, /Nomad (v\d+\.\d+\.\d+\S*)/.exec(execFileSync(p, ['version'], { encoding: 'utf8' }))?.[1] ?? 'unknown'));
}

export const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';
export { runCli, type CliResult } from './cli-child.js';

/** One run's verdicts from a JSON summary, by check id. */
export interface Verdict { id: string; label: string; status: string; message: string; evidence: string[]; perAlloc?: { allocId: string; name: string; status: string; detail: string }[] | null }
export function verdictsOf(run: { verdicts?: Verdict[] } | undefined): Map<string, Verdict> {
  return new Map((run?.verdicts ?? []).map((v) => [v.id, v]));
}
