// `reboot-harness list-labs`: every lab this harness left on the host, found the way `destroy` finds them (one
// definition each): run labs kept by --keep (or a killed run's) and warm labs by their directory under the work dir
// (findLabDirs), orphan domains by where vagrant-libvirt says they came from (findOrphanDomains).
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { EXIT } from '../errors.js';
import { DEFAULTS, type HarnessConfig } from '../config/schema.js';
import { commandLine, labCommand, labWords, type LabPlace } from '../shell/command-line.js';
import { raw } from '../shell/quote.js';
import { LAB_SPEC_FILE, TEARDOWN_FAILED_FILE, slotOf } from '../model/lab-spec.js';
import { topologyLabel, type Topology } from '../model/topology.js';
import { WARM_PREFIX } from '../lab/warm/warm-key.js';
import { findOrphanDomains } from '../lab/host/orphans.js';
import { providerFor } from '../lab/providers.js';
import { deadlineIn } from '../time/deadlines.js';
import type { RunCommand } from '../exec/run.js';
import { findLabDirs, labCreatedAtMs, messageOf, readLabSpec } from './destroy.js';
import type { ParsedArgs } from './command.js';
import type { CliDeps } from './deps.js';

/** Schema id of `list-labs --json`. */
export const LABS_JSON_SCHEMA = 'nomad-reboot-harness/labs@1';

/**
 * kept: a run's lab left by --keep (or by a run killed before its teardown, or one running now); left: a run's lab
 * whose teardown failed; warm: parked; orphan: domains whose directory is gone.
 */
type LabKind = 'kept' | 'left' | 'warm' | 'orphan';

export interface LabEntry {
  id: string;
  kind: LabKind;
  /** its directory (an orphan's is gone) */
  dir: string;
  provider?: string;
  createdAtMs?: number;
  ageS?: number;
  /** slot names (server, client, client-2), or an orphan's domain names */
  machines: string[];
  /** servers+clients, e.g. "1+2" */
  topology?: string;
}

/** Budget for asking libvirt about orphan domains. */
const ORPHAN_LOOK_MS = 60_000;

/** The labs under the work dir, and (libvirt) the orphan domains; `problems` says what could not be looked at. */
export async function findLabs(
  config: HarnessConfig,
  o: {
    nowMs?: number;
    run?: RunCommand /** look for orphan domains too (libvirt; default true) */;
    orphans?: boolean;
  } = {},
): Promise<{ labs: LabEntry[]; problems: string[] }> {
  const nowMs = o.nowMs ?? Date.now();
  const labs: LabEntry[] = [];
  const problems: string[] = [];
  for (const { runId, dir } of await findLabDirs(config.lab.workDir)) {
    try {
      const spec = await readLabSpec(dir);
      const createdAtMs = await labCreatedAtMs(dir, runId);
      const count = (role: string) => spec.machines.filter((m) => m.role === role).length;
      const left = await stat(join(dir, TEARDOWN_FAILED_FILE)).catch(() => undefined);
      labs.push({
        id: runId,
        kind: runId.startsWith(WARM_PREFIX) ? 'warm' : left ? 'left' : 'kept',
        dir,
        provider: spec.provider,
        createdAtMs,
        ageS: Math.max(0, Math.round((nowMs - createdAtMs) / 1000)),
        machines: spec.machines.map(slotOf),
        topology: topologyLabel({ servers: count('server'), clients: count('client') } as Topology),
      });
    } catch (err) {
      problems.push(`lab ${runId} (${dir}): its ${LAB_SPEC_FILE} cannot be read: ${messageOf(err)}`);
    }
  }
  if (providerFor(config).host.orphanDomains && o.orphans !== false) {
    try {
      const orphans = await findOrphanDomains({
        deadline: deadlineIn(ORPHAN_LOOK_MS),
        ...(o.run ? { run: o.run } : {}),
      });
      const byDir = new Map<string, string[]>();
      for (const d of orphans) byDir.set(d.dir, [...(byDir.get(d.dir) ?? []), d.name]);
      for (const [dir, names] of byDir) labs.push({ id: basename(dir), kind: 'orphan', dir, machines: names });
    } catch (err) {
      problems.push(`could not look for orphan domains (a lab whose directory is gone): ${messageOf(err)}`);
    }
  }
  return { labs, problems };
}

/** An age as a person reads it: 42s, 17m, 5h, 3d. Pure. */
export function ageText(s: number): string {
  if (s < 120) return `${s}s`;
  if (s < 2 * 3600) return `${Math.round(s / 60)}m`;
  if (s < 2 * 86400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}

/** The table `list-labs` prints. Pure. */
export function renderLabs(
  labs: readonly LabEntry[],
  place: string | LabPlace,
  orphansLooked = true,
  workDirIs: 'a directory' | 'missing' | 'not a directory' | `cannot be read (${string})` = 'a directory',
): string {
  const workDir = typeof place === 'string' ? place : place.workDir;
  // a mistyped --work-dir would otherwise look like an empty one
  const under =
    workDirIs === 'a directory'
      ? workDir
      : `${workDir} (${workDirIs === 'missing' ? 'it does not exist: no run made a lab there' : `it ${workDirIs === 'not a directory' ? 'is not a directory' : workDirIs}`}; --work-dir or lab.work_dir names the work dir)`;
  if (!labs.length)
    return orphansLooked
      ? `no labs under ${under} and no orphan domains`
      : `no labs under ${under}; orphan domains: not looked at (see the warning)`;
  const rows = labs.map((l) => [
    l.id,
    l.kind,
    l.ageS === undefined ? '?' : ageText(l.ageS),
    l.topology ?? '?',
    machinesText(l.machines),
    l.kind === 'orphan' ? `${l.dir} (gone)` : l.dir,
  ]);
  const head = ['ID', 'KIND', 'AGE', 'TOPOLOGY', 'MACHINES', 'DIR'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  // Note: the templates name the work dir listed when it is not the default: followed without it, login and destroy
  // <id> looked in the default work dir ("no lab for run id"), and a sweep (--older-than) removed its labs (Q528);
  // and the namespace: login without it entered nrh-lab, where another lab may answer at the same address (Q600)
  const hints = [
    labs.some((l) => l.kind === 'kept')
      ? `reach a kept lab: ${commandLine(['reboot-harness', 'login', raw('<id>'), raw('[machine]'), ...labWords(place)])}`
      : '',
    labs.some((l) => l.kind === 'left')
      ? `left: its teardown failed (${TEARDOWN_FAILED_FILE} in its DIR says why); destroy <id> tries again`
      : '',
    `remove: ${commandLine(['reboot-harness', 'destroy', raw('<id>'), ...labWords(place)])} (or --warm, --stale or --older-than <duration> in place of <id>: each sweep takes the orphans too)`,
  ].filter(Boolean);
  return [line(head), ...rows.map(line), '', ...hints].join('\n');
}

/** `list-labs [--json]`: exit 0, or 3 when something could not be looked at (what was found is still listed). */
export async function listLabsCommand(_args: ParsedArgs, config: HarnessConfig, deps: CliDeps): Promise<number> {
  const { labs, problems } = await findLabs(config);
  if (config.output.json)
    deps.out(`${JSON.stringify({ schema: LABS_JSON_SCHEMA, workDir: config.lab.workDir, labs, problems }, null, 2)}\n`);
  else {
    const looked = !problems.some((p) => p.startsWith('could not look for orphan domains'));
    const st = await stat(config.lab.workDir).catch((err: NodeJS.ErrnoException) => err);
    // a symlink loop (ELOOP) is no missing work dir
    const is =
      st instanceof Error
        ? st.code === 'ENOENT'
          ? 'missing'
          : (`cannot be read (${st.code ?? st.message})` as const)
        : st.isDirectory()
          ? 'a directory'
          : 'not a directory';
    deps.out(`${renderLabs(labs, config.lab, looked, is)}\n`);
  }
  for (const p of problems) deps.err(`warning: ${p}\n`);
  return problems.length ? EXIT.INFRA : EXIT.OK;
}

/** The most machines a run's lab has: 5 servers and 8 clients (--servers, --clients). */
const MOST_MACHINES = 13;

/**
 * The MACHINES cell of a lab: its slots, the first 13 of a spec that lists more (edited by hand). Note: every row is
 * padded to the widest cell, and one spec of 200000 machines made each row of the table 1.2 MB of spaces (Q564).
 */
function machinesText(machines: readonly string[]): string {
  if (machines.length <= MOST_MACHINES) return machines.join(',');
  return `${machines.slice(0, MOST_MACHINES).join(',')},… (${machines.length} machines)`;
}

/**
 * What --keep left, each lab as it describes itself, and how to destroy it (said once; its work dir named when not the
 * default). A lab's own description names no work dir or namespace (lib/lab, Q426): when the place is not the default,
 * the login line that reaches it is said here as well (Q600).
 */
export function keptMessage(runId: string, kept: string[], place: string | LabPlace = DEFAULTS.lab.workDir): string {
  // Note: each kept entry is a lab's own description (how to reach it, how to remove it by hand), several lines long;
  // the destroy command is said once: here only when no description says it already
  const destroy = labCommand('destroy', runId, place);
  const later = kept.some((k) => k.includes(destroy)) ? '' : `  destroy later with: ${destroy}\n`;
  const login = labCommand('login', runId, place, [raw('[machine]')]);
  const loginAt =
    labWords(place).length && kept.some((k) => k.includes('reboot-harness login ')) ? `  log in with: ${login}\n` : '';
  return `lab kept (--keep):\n${kept.join('\n')}\n${loginAt}${later}`;
}
