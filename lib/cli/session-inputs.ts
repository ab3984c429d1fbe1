// The session command's reads of the user's own input files, apart from its flow (lib/cli/session-command.ts): the
// inputs that are FIFOs, sockets or devices left unread (told as problems, never opened), a matrix's job parsed with
// a good build when the file did not plan, the known-issue file read as a run reads it, and a word after a switch.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { decodeUtf8 } from '../config/text-file.js';
import { ConfigError, type ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Scenario } from '../run/scenario.js';
import type { BuildRef } from '../plan/session-plan.js';
import { loadKnownIssueTable } from '../session/known-issues.js';
import { notAFileProblem, type InputPath } from './paths.js';
import { SWITCH_WORDS } from './command.js';
import { expandHome, sshHosts } from '../lab/ssh/ssh-lab.js';

/** The `reboot.faults` of a harness.yaml or a matrix's `defaults:` as written. */
export const faultsOf = (d: unknown) => (d as { reboot?: { faults?: unknown } } | null | undefined)?.reboot?.faults;

/** A harness.yaml (or `defaults:`) mapping without its `reboot.faults`. */
export function withoutFaults(d: unknown): unknown {
  const { reboot, ...rest } = d as { reboot: Record<string, unknown> };
  const { faults: _faults, ...left } = reboot;
  return { ...rest, reboot: left };
}

/**
 * A matrix that failed to plan (a problem of its own, `parallel: 99`): its `defaults.job` (unless --job or HARNESS_JOB
 * gives the job) with one of its builds that has no problem, for each of its scenarios, so Nomad's word on the job is
 * told with the file's problems, not in a second round once they are fixed (Q182).
 */
export function matrixJobConfigs(
  base: HarnessConfig,
  data: unknown,
  builds: readonly BuildRef[],
  bad: readonly ConfigProblem[],
): HarnessConfig[] {
  const m = (data ?? {}) as {
    scenario?: unknown;
    defaults?: { job?: { file?: unknown; files?: unknown; vars?: unknown } };
  };
  const job = m.defaults?.job;
  // Note: job.files (several jobs, rolling-reboot and server-reboot) as well as job.file: a cell's other problem left
  // a batch job on bridge-exec-reboot for the next round (Q363)
  const given = [job?.file, job?.files].flat().filter((f): f is string => typeof f === 'string' && f !== '');
  const files = base.job.files.length ? base.job.files : given;
  const vars =
    base.job.files.length || !isRecord(job?.vars) ? base.job.vars : (job.vars as HarnessConfig['job']['vars']);
  const build = builds.find((b) => b.role === 'nomad' && !bad.some((p) => p.value === b.spec));
  if (!files.length || !build) return [];
  const scenarios = [m.scenario].flat().filter((x): x is string => typeof x === 'string');
  return scenarios.map((scenario) => ({
    ...base,
    scenario,
    nomadBinary: resolve(build.cwd, build.spec),
    job: { files, vars },
  }));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The files a matrix that failed to plan still has read from its `defaults:` (read from the working directory, as
 * harness.yaml's): its job (Nomad's parse, matrixJobConfigs), its known-issue file (withMatrixKnownIssues) and its
 * release key, each unless the command line, the environment or harness.yaml gives its own. Among the inputs checked for
 * FIFOs and devices, so that one is told and left unread: a FIFO known-issue file held the command past SIGTERM, and
 * /dev/zero took 16 GB (Q186).
 */
export function matrixDefaultsInputs(base: HarnessConfig, data: unknown, knownIssuesFile?: string): InputPath[] {
  const d = isRecord(data) && isRecord(data['defaults']) ? data['defaults'] : {};
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const job = isRecord(d['job']) ? [d['job']['file'], d['job']['files']].flat() : [];
  const key = isRecord(d['builds']) ? d['builds']['releases_key'] : undefined;
  return [
    ...(base.job.files.length ? [] : job.filter(text).map((value) => ({ field: 'job.file (--job)', value }))),
    ...(text(knownIssuesFile) ? [{ field: 'known_issues_file', value: knownIssuesFile }] : []),
    ...(!base.builds.releasesKey && text(key) ? [{ field: '--releases-key', value: key }] : []),
    ...defaultsHostKeys(base, d),
  ];
}

/**
 * The keys of the existing hosts a matrix's `defaults:` gives (`lab.provider: ssh` there or in harness.yaml), as
 * written (a failed plan has no config with them): a FIFO or a device among them was told only once the file planned
 * (Q251's second round). Not when harness.yaml's own hosts are used (the defaults give none).
 */
function defaultsHostKeys(base: HarnessConfig, d: Record<string, unknown>): InputPath[] {
  const lab = isRecord(d['lab']) ? d['lab'] : {};
  const raw = isRecord(lab['hosts']) ? lab['hosts'] : undefined;
  if (!raw || (lab['provider'] ?? base.lab.provider) !== 'ssh') return [];
  // only the key is looked at; one that is no text is the planner's problem
  const spec = (v: unknown) =>
    ({ key: isRecord(v) && typeof v['key'] === 'string' ? v['key'] : undefined }) as HostSpec;
  const list = (v: unknown) => (Array.isArray(v) ? v.map(spec) : []);
  const hosts = {
    servers: list(raw['servers']),
    clients: list(raw['clients']),
    server: spec(raw['server']),
    client: spec(raw['client']),
  } as Hosts;
  return hostKeyInputs({ ...base, lab: { ...base.lab, provider: 'ssh', hosts } });
}

/**
 * The build a matrix that failed to plan upgrades to from its `defaults:` (read from the working directory, as the
 * planner reads it), unless the command line, the environment or harness.yaml gives one: checked with the file's
 * problems (a FIFO, a missing file), not in a second round once the file plans (Q195).
 */
export function matrixDefaultsBuilds(base: HarnessConfig, data: unknown, cwd: string): BuildRef[] {
  const d = isRecord(data) && isRecord(data['defaults']) ? data['defaults'] : {};
  const spec = d['upgrade_to'];
  if (base.upgradeTo || typeof spec !== 'string' || spec === '') return [];
  return [{ field: '--upgrade-to', spec, cwd, role: 'upgrade-to' }];
}

/** The absolute paths of the inputs that are FIFOs, sockets or devices (notAFileProblem): left unread. */
export async function pipedInputs(inputs: readonly InputPath[], cwd: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const i of inputs) if (await notAFileProblem(i, cwd)) out.add(resolve(i.from ?? cwd, i.value));
  return out;
}

/** A config without the input files in `piped`: its jobs, known-issue file and release key, for checks that read them. */
export function withoutPiped(c: HarnessConfig, piped: ReadonlySet<string>, cwd: string): HarnessConfig {
  if (!piped.size) return c;
  const is = (v: string | undefined) => v !== undefined && v !== '' && piped.has(resolve(cwd, v));
  return {
    ...c,
    job: { ...c.job, files: c.job.files.filter((f) => !is(f)) },
    knownIssuesFile: is(c.knownIssuesFile) ? undefined : c.knownIssuesFile,
    builds: is(c.builds.releasesKey) ? { ...c.builds, releasesKey: undefined } : c.builds,
    nomadBinary: is(c.nomadBinary) ? undefined : c.nomadBinary,
    upgradeTo: is(c.upgradeTo) ? undefined : c.upgradeTo,
    lab: { ...c.lab, hosts: withoutPipedKeys(c.lab.hosts, (k) => is(expandHome(k))) },
  };
}

type Hosts = HarnessConfig['lab']['hosts'];
type HostSpec = Hosts['server'];

function withoutPipedKeys(hosts: Hosts, is: (key: string) => boolean): Hosts {
  const drop = (h: HostSpec): HostSpec => (h.key && is(h.key) ? { ...h, key: undefined } : h);
  return {
    servers: hosts.servers.map(drop),
    clients: hosts.clients.map(drop),
    server: drop(hosts.server),
    client: drop(hosts.client),
  };
}

/**
 * The private keys of `lab.provider: ssh`'s hosts, among the inputs checked for FIFOs and devices: the key check reads
 * each whole, and a FIFO key held the command past SIGTERM (Q193).
 */
export function hostKeyInputs(c: HarnessConfig): InputPath[] {
  if (c.lab.provider !== 'ssh') return [];
  return sshHosts(c.lab.hosts, ['server', 'client']).flatMap((h) =>
    h.spec.key ? [{ field: `${h.field}.key`, value: expandHome(h.spec.key) }] : [],
  );
}

/** The user's known-issue file, read as the run reads it: its problems with the rest (and under --plan). */
export async function knownIssueFileProblems(
  base: HarnessConfig,
  scenarios: readonly Scenario[],
): Promise<ConfigProblem[]> {
  if (!base.knownIssuesFile) return [];
  try {
    // Note: UTF-16 or Latin-1 would be read as a mapping of garbage ("issues: must be a list"), not named as such
    const bytes = await readFile(base.knownIssuesFile).catch(() => undefined);
    const text = bytes && decodeUtf8(bytes, 'known_issues_file (--known-issues-file)', base.knownIssuesFile);
    if (text && !text.ok) return [text.problem];
    await loadKnownIssueTable(base, scenarios);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

/**
 * A word after a switch that also takes words (`--keep maybe`) that is neither its word nor a scenario: the switch's
 * problem (which words it takes), not "maybe is not a known scenario", which names a mistake the person did not make.
 */
export function wordAfterSwitch(problems: readonly ConfigProblem[], rawArgs: readonly string[]): ConfigProblem[] {
  return problems.map((p) => {
    if (p.field !== 'scenario' || p.message !== 'is not a known scenario') return p;
    const before = rawArgs[rawArgs.indexOf(String(p.value)) - 1];
    const words = before?.startsWith('--') ? SWITCH_WORDS[before.slice(2)] : undefined;
    // Note: a switch takes its true/false after "=" (--fresh=false); a separate word is read as the scenario.
    if (!words && before?.startsWith('--') && /^(true|false|yes|no|1|0)$/i.test(String(p.value)))
      return {
        field: before,
        value: p.value,
        message: `is a switch: the word after it is read as the scenario (and ${JSON.stringify(p.value)} is no scenario)`,
        fix: `write ${before}=${String(p.value)}, or ${before} alone for true`,
      };
    if (!words) return p;
    return {
      field: before!,
      value: p.value,
      message: `takes no value but ${words.join(', ')} (and ${JSON.stringify(p.value)} is no scenario either)`,
      fix: `write ${before} alone or ${before} ${words.join('|')}; a scenario name after it is taken as the scenario (reboot-harness list)`,
    };
  });
}
