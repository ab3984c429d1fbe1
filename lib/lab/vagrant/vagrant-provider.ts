// The Vagrant providers (libvirt, virtualbox): VMs from vms/Vagrantfile, brought up by one `vagrant up` of every
// machine (vagrant-libvirt starts them in parallel), or a warm lab reverted to its snapshot (libvirt).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryBudgetProblems, qemuOverheadMb } from './memory-budget.js';
import { slotOf, type LabSpec } from '../../model/lab-spec.js';
import type { Lab } from '../../model/lab.js';
import type { Topology } from '../../model/topology.js';
import type { Deadline } from '../../time/deadlines.js';
import type { LabContext, LabProvider, ProvidedLab } from '../provider.js';
import { labSpecFor } from './spec-for.js';
import { sshKeysGivenProblems } from '../ssh/ssh-validate.js';
import { performedKinds } from '../perform.js';
import { VAGRANT_PERFORMERS } from './vagrant-faults.js';
import { createVagrantLab } from './vagrant-lab.js';
import { decideWarm } from '../warm/warm-key.js';
import type { WarmLab } from '../warm/warm-lab.js';
import { openWarmLab, vagrantSnapshots, warmInputsFor } from './vagrant-warm.js';

/** vms/Vagrantfile of this checkout. */
export const VAGRANTFILE = fileURLToPath(new URL('../../../vms/Vagrantfile', import.meta.url));

/** The config with `t` as its topology (the spec is made from the config). */
const withTopology = (ctx: LabContext, t: Topology) => ({
  ...ctx.config,
  lab: { ...ctx.config.lab, servers: t.servers, clients: t.clients },
});

/** lab.libvirt_driver resolved before `vagrant up`, so the probe's VM never runs next to this run's lab. */
async function pickDriver(ctx: LabContext, d: Deadline): Promise<'kvm' | 'qemu'> {
  const setting = ctx.config.lab.libvirtDriver;
  const choice = ctx.chooseDriver
    ? await ctx.chooseDriver(setting, ctx.config.lab.box, d)
    : { driver: setting === 'kvm' ? ('kvm' as const) : ('qemu' as const), reason: `${setting}, no probe here` };
  ctx.fact('lab.libvirt_driver', choice.driver);
  ctx.fact('lab.libvirt_driver.setting', setting);
  ctx.fact('lab.libvirt_driver.reason', choice.reason);
  ctx.info(`libvirt driver ${choice.driver}: ${choice.reason}`);
  return choice.driver;
}

/** The key's warm lab (lib/lab/warm/warm-lab.ts over vagrant-warm.ts), or undefined when this run goes cold (the reason is a fact). */
async function upWarm(ctx: LabContext, t: Topology, spec: LabSpec, d: Deadline): Promise<WarmLab | undefined> {
  const { config } = ctx;
  const inputs = await warmInputsFor(config, {
    roles: ctx.roles,
    topology: t,
    driver: spec.libvirt.driver,
    vagrantfile: VAGRANTFILE,
    nomad: ctx.needsNomad,
  });
  const opened = await openWarmLab(
    {
      config,
      spec,
      inputs,
      vagrantfile: VAGRANTFILE,
      logger: ctx.logger,
      cleanup: (what, fn, o) => ctx.cleanup(what, fn, o),
      ssh: { streamOutput: config.output.verbose },
    },
    d,
  );
  if ('cold' in opened) {
    ctx.fact('lab.warm', `no (${opened.cold})`);
    ctx.info(`cold lab: ${opened.cold}`);
    return undefined;
  }
  ctx.fact('lab.dir', opened.dir);
  ctx.fact('lab.snapshot.key', opened.key);
  if (opened.decision.mode === 'reuse') {
    const took = ((opened.revertMs ?? 0) / 1000).toFixed(1);
    ctx.fact('lab.warm', 'yes');
    ctx.fact('lab.snapshot.age_s', String(opened.decision.ageS));
    ctx.fact('lab.snapshot.revert_s', took);
    const skew = Object.entries(opened.clockSkewS).map(([r, s]) => `${r}=${s}`);
    ctx.fact('lab.snapshot.clock_skew_s', skew.join(' '));
    ctx.info(
      `warm lab ${opened.key}: reverted to its snapshot (${opened.decision.ageS} s old) in ${took} s; guest clocks set`,
    );
  } else {
    const why = opened.decision.rebuild ? `rebuilt: ${opened.decision.rebuild}` : 'first run of this key';
    ctx.fact('lab.warm', `no (${why}; snapshot taken once prepared)`);
  }
  ctx.evidence('lab: vagrant status, serial consoles', (dd) => opened.lab.collectEvidence({ deadline: dd }));
  return opened;
}

/** A cold lab in the run's own Vagrant directory, destroyed at the end of the run. */
async function upCold(ctx: LabContext, spec: LabSpec, d: Deadline): Promise<Lab> {
  const vagrantDir = join(ctx.config.lab.workDir, ctx.runId);
  ctx.fact('lab.dir', vagrantDir);
  const prepared = createVagrantLab({
    spec,
    vagrantDir,
    vagrantfile: VAGRANTFILE,
    logger: ctx.logger,
    cleanup: (what, fn, o) => ctx.cleanup(what, fn, o),
    ssh: { streamOutput: ctx.config.output.verbose },
  });
  // registered before `vagrant up`, so a bring-up that fails or is interrupted keeps what Vagrant printed and the
  // serial consoles (collected before the teardown destroys the VMs)
  ctx.evidence('lab: vagrant up output, vagrant status, serial consoles', (dd) =>
    prepared.collectEvidence({ deadline: dd }),
  );
  // Note: what --keep leaves is said once, at the end of the run (the cleanup entry's keptAs), not after bring-up.
  return prepared.up({ deadline: d });
}

/** Why a run of this config does not use a warm lab (decideWarm's reason), before one is looked for. */
function coldBecause(ctx: LabContext, provider: string): string | undefined {
  const { lab, keep } = ctx.config;
  const snapshots = vagrantSnapshots(provider) !== undefined;
  const early = decideWarm({ warm: lab.warm, provider, snapshots, keep, state: { kind: 'none' }, nowMs: 0 });
  return early.mode === 'cold' ? early.reason : undefined;
}

function vagrantProvider<N extends 'libvirt' | 'virtualbox'>(name: N): LabProvider<N> {
  const snapshots = vagrantSnapshots(name);
  return {
    name,
    capabilities: {
      faults: performedKinds(VAGRANT_PERFORMERS),
      // the hypervisor has every power control
      // Note: power-loss-all is proven on libvirt only (virsh destroy of every domain at once)
      lacks: () =>
        name === 'libvirt'
          ? {}
          : {
              'power-off-all': {
                reason: 'every machine powered off at once is done on libvirt only',
                fix: 'set lab.provider libvirt',
              },
            },
      concurrentUp: name === 'libvirt',
      vmOverheadMb: (lab) => qemuOverheadMb({ ...lab, provider: name }),
    },
    host: {
      workDir: true,
      netns: 'lab',
      orphanDomains: name === 'libvirt',
      libvirtDriver: name === 'libvirt',
      doctor:
        name === 'libvirt'
          ? { checks: true }
          : {
              checks: false,
              fix: 'check VirtualBox yourself (VBoxManage --version, vagrant box list), or drop --provider for the libvirt host checks',
            },
      machinesFromConfig: false,
    },
    ...(snapshots ? { snapshots } : {}),
    validateConfig: sshKeysGivenProblems,
    validate: (t, config, host = {}) =>
      memoryBudgetProblems(t, { ...config.lab, provider: name }, host.memAvailableMb, host.roles),
    async up(t, ctx, d): Promise<ProvidedLab> {
      const driver = name === 'libvirt' ? await pickDriver(ctx, d) : undefined;
      const config = withTopology(ctx, t);
      const spec = labSpecFor(config, ctx.runId, ctx.roles, driver);
      const ipOf = new Map(spec.machines.map((m) => [slotOf(m), m.privateIp]));
      const agentAddress = async (machine: string) => {
        const ip = ipOf.get(machine);
        if (!ip) throw new Error(`the lab has no machine ${machine} (it has ${[...ipOf.keys()].join(', ')})`);
        return ip;
      };
      const cold = coldBecause(ctx, name);
      if (cold) ctx.fact('lab.warm', `no (${cold})`);
      if (cold && ctx.config.lab.warm) ctx.info(`cold lab: ${cold}`);
      const warm = cold ? undefined : await upWarm(ctx, t, spec, d);
      if (warm) return { lab: warm.lab, warm, agentAddress };
      return { lab: await upCold(ctx, spec, d), agentAddress };
    },
  };
}

export const LIBVIRT = vagrantProvider('libvirt');
export const VIRTUALBOX = vagrantProvider('virtualbox');
