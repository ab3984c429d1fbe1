// Orphan domains: a harness lab's libvirt domains whose lab directory is gone (deleted by hand, a temporary work dir
// removed by a test runner, a killed benchmark's scratch dir). `destroy` finds labs by their directory, so these
// are invisible to it and would run or sit on disk for ever. vagrant-libvirt records where each domain came from in
// its description (`Source: <dir>/Vagrantfile`); a domain is the harness's when that dir's name is a lab id and the
// domain's name is that id plus a role, and an orphan when the dir no longer holds its lab spec.
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Deadline } from '../../time/deadlines.js';
import type { RunCommand } from '../../exec/run.js';
import type { Logger } from '../../log/events.js';
import { domainDescription, listDomains, undefineDomain } from '../../vagrant/snapshot.js';
import { LAB_SPEC_FILE } from '../../model/lab-spec.js';

/** A lab id: a run (lib/cli/session-command.ts newRunId), a warm lab (warm-<key>), the benchmark's raw floor (bench/floor.ts). */
const LAB_ID = /^(r[0-9a-z]{5}[0-9a-f]{8}|warm-[0-9a-f]{16}|nrhbench[0-9a-f]{6})$/;

/** The lab directory a harness domain was made from, or undefined when the domain is not a harness lab's. Pure. */
export function harnessDomainDir(name: string, description: string | undefined): string | undefined {
  const m = /^Source: (\/.*)\/Vagrantfile$/.exec(description?.trim() ?? '');
  if (!m) return undefined;
  const dir = m[1]!;
  const id = basename(dir);
  if (!LAB_ID.test(id) || !name.startsWith(`${id}-`)) return undefined;
  return /^[a-z][a-z0-9_-]*$/.test(name.slice(id.length + 1)) ? dir : undefined;
}

/** One orphan: the domain and the directory it came from. */
interface OrphanDomain {
  name: string;
  dir: string;
}

/** The harness domains whose lab directory no longer holds its lab spec. */
export async function findOrphanDomains(o: { deadline: Deadline; run?: RunCommand }): Promise<OrphanDomain[]> {
  const out: OrphanDomain[] = [];
  for (const name of await listDomains(o)) {
    const dir = harnessDomainDir(name, await domainDescription(name, o));
    if (dir && !(await stat(join(dir, LAB_SPEC_FILE)).catch(() => undefined))) out.push({ name, dir });
  }
  return out;
}

/** Remove every orphan (powered off, snapshots deleted, undefined with its storage); returns how many failed. */
export async function destroyOrphanDomains(o: {
  deadline: Deadline;
  run?: RunCommand;
  logger: Logger;
}): Promise<number> {
  let failed = 0;
  for (const { name, dir } of await findOrphanDomains(o)) {
    try {
      await undefineDomain(name, o);
      o.logger({
        kind: 'info',
        t: 0,
        message: `destroyed orphan domain ${name} (its lab directory ${dir} is gone), with its snapshots and disks`,
      });
    } catch (err) {
      failed++;
      o.logger({
        kind: 'warn',
        t: 0,
        message: `could not destroy orphan domain ${name}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }
  return failed;
}
