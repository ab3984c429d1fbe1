// Warm labs on the libvirt provider: its snapshot/restore (LabSnapshots, lib/lab/provider.ts) as libvirt internal
// snapshots with memory of the lab's running domains (lib/vagrant/snapshot.ts), the key's inputs as Vagrant makes the
// VMs (box, Vagrantfile, driver), and what `destroy` asks of a warm lab (stale, broken, removed). The warm lab itself,
// its record, lock and decisions, is lib/lab/warm/warm-lab.ts, which talks to this file through the interface only.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HarnessConfig } from '../../config/schema.js';
import type { RunCommand } from '../../exec/run.js';
import type { Logger } from '../../log/events.js';
import type { Topology } from '../../model/topology.js';
import type { Deadline } from '../../time/deadlines.js';
import type { SshMachineOptions } from '../../ssh/client.js';
import { vagrantBoxesDir } from '../../vagrant/box-files.js';
import { compareDotted } from '../../parse/versions.js';
import { sha256File, sha256Of } from '../../builds/cache.js';
import {
  deleteSnapshots,
  networkState,
  powerOffDomain,
  revertDomain,
  snapshotDomains,
  snapshotNames,
  startNetwork,
  undefineDomain,
} from '../../vagrant/snapshot.js';
import { createVagrant, type VagrantOptions } from '../../vagrant/vagrant.js';
import { TEMPLATE_DIR } from '../../cluster/templates.js';
import { jobsUseRawExec } from '../../parse/nomad-job.js';
import { LAB_SPEC_FILE, serialLogPath, slotOf, type LabSpec } from '../../model/lab-spec.js';
import type { LabSnapshots, WarmAt } from '../warm/snapshots.js';
import { warmConfigInputs, type WarmCurrent, type WarmInputs, type WarmLabState } from '../warm/warm-key.js';
import { openWarm, warmLabState, type WarmLab, type WarmRecord } from '../warm/warm-lab.js';
import { createVagrantLab } from './vagrant-lab.js';

/** What a Vagrant provider's `up` knows that its warm lab's machines are made from. */
interface VagrantWarmContext {
  /** the lab spec as a cold run would make it (its runId and machine names become the warm lab's) */
  spec: LabSpec;
  vagrantfile: string;
  logger: Logger;
  cleanup: (what: string, fn: () => Promise<void>, opts?: { keptAs?: () => string; alsoWhenKept?: boolean }) => void;
  ssh?: Partial<Pick<SshMachineOptions, 'bootIdCommand' | 'connectTimeoutMs' | 'streamOutput'>>;
  /** local commands (virsh, vagrant); tests inject */
  run?: RunCommand;
  vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'run' | 'logger'>>;
}

/** The added box's identity: its newest version and image size+mtime (a rebuilt box is another box). */
async function boxIdentity(box: string, provider: string): Promise<string> {
  const dir = path.join(vagrantBoxesDir(), box.replaceAll('/', '-VAGRANTSLASH-'));
  const versions = (await fs.readdir(dir).catch(() => [] as string[])).filter((v) => /^\d+(\.\d+)*$/.test(v));
  const version = versions.sort(compareDotted).at(-1);
  if (!version) return 'not added';
  const img = await fs.stat(path.join(dir, version, provider, 'box.img')).catch(() => undefined);
  return img ? `${version} ${img.size} ${Math.round(img.mtimeMs)}` : `${version} (no box.img)`;
}

/** sha256 of the agent templates (server.hcl, client.hcl, nomad.service) as they are now. */
async function templatesSha256(): Promise<string> {
  const files = ['server.hcl', 'client.hcl', 'nomad.service'].map((t) => fs.readFile(path.join(TEMPLATE_DIR, t)));
  return sha256Of(Buffer.concat(await Promise.all(files)));
}

/** The host's side of a warm lab's inputs now, to tell a stale one (lib/lab/warm/warm-key.ts staleReasons). */
export async function warmCurrent(record: WarmRecord, vagrantfile: string): Promise<WarmCurrent> {
  const build = record.nomadPath;
  const buildSha256 = record.inputs.nomad
    ? build &&
      (await fs.stat(build).then(
        () => true,
        () => false,
      ))
      ? await sha256File(build)
      : 'missing'
    : undefined;
  return {
    boxId: await boxIdentity(record.inputs.box, record.inputs.provider),
    vagrantfile: await sha256File(vagrantfile),
    templates: await templatesSha256(),
    ...(buildSha256 ? { buildSha256 } : {}),
  };
}

/** The key's inputs for a run: the lab config that shapes the VMs; for Nomad scenarios the build and agent config. */
export async function warmInputsFor(
  config: HarnessConfig,
  o: { roles: readonly string[]; topology?: Topology; driver: string; vagrantfile: string; nomad: boolean },
): Promise<WarmInputs> {
  const c = warmConfigInputs(config, { ...(o.topology ? { topology: o.topology } : {}), nomad: o.nomad });
  const nomad =
    c.heartbeatGrace !== undefined && config.nomadBinary
      ? {
          sha256: await sha256File(config.nomadBinary),
          heartbeatGrace: c.heartbeatGrace,
          templates: await templatesSha256(),
          ...((await jobsUseRawExec(config.job.files, (f) => fs.readFile(f, 'utf8'))) ? { rawExec: true } : {}),
        }
      : undefined;
  return {
    ...c.settings,
    boxId: await boxIdentity(config.lab.box, config.lab.provider),
    roles: [...o.roles],
    driver: o.driver,
    vagrantfile: await sha256File(o.vagrantfile),
    ...(nomad ? { nomad } : {}),
  };
}

/** The libvirt networks a lab's domains are attached to. */
function labNetworks(spec: Pick<LabSpec, 'privateNetwork' | 'libvirt'>): string[] {
  return [spec.libvirt.managementNetwork.name, spec.privateNetwork.name];
}

/** What keeps the lab of `spec` from being reverted to snapshot `name`: a domain, its snapshot or a network gone. */
async function libvirtMissing(
  spec: Pick<LabSpec, 'machines' | 'privateNetwork' | 'libvirt'>,
  name: string,
  o: { deadline: Deadline; run?: RunCommand },
): Promise<string | undefined> {
  for (const m of spec.machines) {
    const names = await snapshotNames(m.name, o);
    if (names === undefined) return `its domain ${m.name} is gone`;
    if (!names.includes(name)) return `its domain ${m.name} has no snapshot ${name}`;
  }
  for (const net of labNetworks(spec)) {
    if ((await networkState(net, o)) === 'missing') return `its libvirt network ${net} is gone`;
  }
  return undefined;
}

/** Whether the warm lab in `dir` has a snapshot on every domain of `spec`. */
export async function inspectWarmLab(
  dir: string,
  spec: Pick<LabSpec, 'machines' | 'privateNetwork' | 'libvirt'>,
  o: { deadline: Deadline; run?: RunCommand },
): Promise<WarmLabState> {
  return warmLabState(dir, (name) => libvirtMissing(spec, name, o));
}

/**
 * Remove a warm lab: its snapshots, its domains (`vagrant destroy`, then by hand whatever is left), its directory and
 * serial logs. Used for a rebuild and by `destroy`.
 */
export async function destroyWarmLab(
  dir: string,
  spec: LabSpec,
  o: {
    deadline: Deadline;
    run?: RunCommand;
    logger?: Logger;
    vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'logger'>>;
  },
): Promise<void> {
  const vo = { deadline: o.deadline, ...(o.run ? { run: o.run } : {}), ...(o.logger ? { logger: o.logger } : {}) };
  for (const m of spec.machines) {
    await powerOffDomain(m.name, vo);
    await deleteSnapshots(m.name, vo);
  }
  if (
    await fs.stat(path.join(dir, 'Vagrantfile')).then(
      () => true,
      () => false,
    )
  ) {
    const vagrant = createVagrant({
      ...o.vagrant,
      cwd: dir,
      ...(o.run ? { run: o.run } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      env: { ...o.vagrant?.env, HARNESS_LAB_SPEC: path.join(dir, LAB_SPEC_FILE) },
    });
    await vagrant.destroy([], { provider: spec.provider, deadline: o.deadline }).catch((err: Error) =>
      o.logger?.({
        kind: 'warn',
        t: 0,
        message: `vagrant destroy in ${dir}: ${err.message.split('\n')[0]}; removing by hand`,
      }),
    );
  }
  for (const m of spec.machines) await undefineDomain(m.name, vo);
  await fs.rm(dir, { recursive: true, force: true });
  await Promise.all(spec.machines.map((m) => fs.rm(serialLogPath(spec, m.name), { force: true })));
}

/** libvirt's snapshot/restore: a warm lab's domains (`<id>-<slot>`) in its own Vagrant directory. */
const LIBVIRT_SNAPSHOTS: LabSnapshots<VagrantWarmContext> = {
  machines(c: VagrantWarmContext, { id, dir }: WarmAt) {
    const spec: LabSpec = {
      ...c.spec,
      runId: id,
      machines: c.spec.machines.map((m) => ({ ...m, name: `${id}-${slotOf(m)}` })),
    };
    const domains = spec.machines.map((m) => m.name);
    const run = c.run ? { run: c.run } : {};
    const vo = (deadline: Deadline) => ({ deadline, ...run, logger: c.logger });
    const vlab = (teardown: Parameters<typeof createVagrantLab>[0]['teardown']) =>
      createVagrantLab({
        spec,
        vagrantDir: dir,
        vagrantfile: c.vagrantfile,
        logger: c.logger,
        cleanup: c.cleanup,
        ...run,
        ...(teardown ? { teardown } : {}),
        ...(c.vagrant ? { vagrant: c.vagrant } : {}),
        ...(c.ssh ? { ssh: c.ssh } : {}),
      });
    return {
      missing: (name, d) => libvirtMissing(spec, name, { deadline: d, ...run }),
      up: (teardown, d) => vlab(teardown).up({ deadline: d }),
      attach: (teardown) => vlab(teardown).attach(),
      async restore(name, d) {
        for (const net of labNetworks(spec)) await startNetwork(net, vo(d));
        // Note: the domains are independent; reverting them together halves the wait with two
        await Promise.all(domains.map((dom) => revertDomain(dom, name, vo(d))));
      },
      take: (name, d) => snapshotDomains(domains, name, vo(d)),
      async drop(d) {
        for (const dom of domains) await deleteSnapshots(dom, vo(d)).catch(() => undefined);
      },
      async park(d) {
        for (const dom of domains) await powerOffDomain(dom, vo(d));
      },
      remove: (d) => destroyWarmLab(dir, spec, { ...vo(d), ...(c.vagrant ? { vagrant: c.vagrant } : {}) }),
    };
  },
};

/** The snapshot/restore of a Vagrant provider: libvirt's; VirtualBox has none here. */
export function vagrantSnapshots(provider: string): LabSnapshots<VagrantWarmContext> | undefined {
  return provider === 'libvirt' ? LIBVIRT_SNAPSHOTS : undefined;
}

/** Open the warm lab of this run's key on the configured Vagrant provider (lib/lab/warm/warm-lab.ts openWarm). */
export function openWarmLab(
  o: VagrantWarmContext & { config: HarnessConfig; inputs: WarmInputs; now?: () => number },
  d: Deadline,
): Promise<WarmLab | { cold: string }> {
  const { config, inputs, now, ...context } = o;
  const snapshots = vagrantSnapshots(config.lab.provider);
  return openWarm(
    {
      config,
      provider: { name: config.lab.provider, ...(snapshots ? { snapshots } : {}) },
      context,
      inputs,
      ...(inputs.nomad && config.nomadBinary ? { nomadPath: config.nomadBinary } : {}),
      logger: o.logger,
      cleanup: o.cleanup,
      ...(now ? { now } : {}),
    },
    d,
  );
}
