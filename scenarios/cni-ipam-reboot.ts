// cni-ipam-reboot: the mechanism behind the seed bug, with no Nomad. On the client VM, the real bridge and
// host-local plugins (from the box) add a container the way Nomad's bridge mode does, once with host-local
// state on persistent disk (/var/lib/cni, Nomad <= 1.9.3) and once on tmpfs (/run/cni, Nomad >= 1.9.4).
// The client reboots for real; the same container is added again without requesting an address (what
// Nomad does when it restores an alloc). Persistent state must refuse it ("duplicate allocation is not
// allowed"); tmpfs state must accept it.
import { defineScenario, noClusterTargets, singleRebootExecOnly } from '../lib/run/scenario.js';
import { HarnessError } from '../lib/errors.js';
import { judgeAll } from '../lib/checks/define.js';
import type { CniProbeRun } from '../lib/checks/cni-probe.js';
import { HOST_REBOOTED } from '../lib/checks/host-rebooted.js';
import { PERSISTENT_STATE_DUPLICATE } from '../lib/checks/persistent-state-duplicate.js';
import { TMPFS_STATE_CLEAN } from '../lib/checks/tmpfs-state-clean.js';
import { installCniProbe, cniAdd, cniReset } from '../lib/cni/probe.js';
import { CNI_DATA_DIRS } from '../lib/checks/cni-state.js';
import { stateDirOf, type BridgeConfigOptions } from '../lib/cni/config.js';
import type { CniStateMode } from '../lib/model/kinds.js';
import { readCniState } from '../lib/cluster/evidence.js';
import { readBootInfo } from '../lib/lab/observe.js';
import { firstOf } from '../lib/model/lab.js';
import { STEP_IDS } from '../lib/model/run.js';
import type { Deadline } from '../lib/time/deadlines.js';
import { faultParams, faultProblems, rebootStepMs, recordFault, recordOneTarget } from '../lib/steps/fault-step.js';

/** Each mode gets its own bridge, subnet and netns so the two probes cannot disturb each other. */
const PROBES: Record<CniStateMode, { netns: string; config: BridgeConfigOptions }> = {
  persistent: {
    netns: 'cni-persistent',
    config: { dataDir: CNI_DATA_DIRS.persistent, bridge: 'nomad', subnet: '172.26.64.0/20' },
  },
  tmpfs: { netns: 'cni-tmpfs', config: { dataDir: CNI_DATA_DIRS.tmpfs, bridge: 'nomadtmp', subnet: '172.26.80.0/20' } },
};
const MODES: CniStateMode[] = ['persistent', 'tmpfs'];

/** The checks, in report order: the reboot itself, then one per state mode's probe. */
export const CHECKS = [HOST_REBOOTED, PERSISTENT_STATE_DUPLICATE, TMPFS_STATE_CLEAN];

export default defineScenario({
  name: 'cni-ipam-reboot',
  summary: 'no Nomad: the real bridge + host-local CNI plugins across a real reboot, state on disk vs on tmpfs',
  needsNomad: false,
  roles: ['client'],
  // panic and power-off reboot the host too; agent-kill and partition need a Nomad agent, which this has not
  validate: (config) => [
    ...singleRebootExecOnly('cni-ipam-reboot', config),
    ...noClusterTargets('cni-ipam-reboot', config),
    ...faultProblems('cni-ipam-reboot', config, { hasNomadAgent: false }),
  ],
  checks: CHECKS,
  async run(ctx, env) {
    const lab = await ctx.step('bring up the client VM', (d) => env.upLab(ctx, d, { roles: ['client'] }), {
      id: STEP_IDS.labUp,
      timeoutMs: 20 * 60_000,
    });
    // the first client (the only one in a pair); the others stay as they are, untouched
    const { name: clientName, machine: client } = firstOf(lab, 'client');
    recordOneTarget(ctx, lab, clientName);
    // The other machines (more clients, --clients N) stay as they are: their boot ids before and after say so.
    const bystanders = Object.entries(lab.machines).filter(([name]) => name !== clientName);
    const bystanderBoots = async (when: 'before' | 'after', d: Deadline) => {
      for (const [name, m] of bystanders) ctx.fact(`${name}.boot_id.${when}`, await m.bootId({ deadline: d }));
    };
    const stateDirs = MODES.map((m) => stateDirOf(PROBES[m].config.dataDir));
    const runs: CniProbeRun[] = MODES.map((mode) => ({
      mode,
      stateDir: stateDirOf(PROBES[mode].config.dataDir),
      containerId: `${ctx.runId}-${mode}`,
      first: undefined,
      second: undefined,
      stateBefore: undefined,
      stateAfter: undefined,
    }));

    await ctx.step('install the CNI probe and start from a clean slate', async (d) => {
      await installCniProbe(client, { deadline: d });
      for (const m of MODES)
        await cniReset(client, {
          netns: PROBES[m].netns,
          stateDirs: [stateDirOf(PROBES[m].config.dataDir)],
          deadline: d,
        });
    });
    const bootBefore = await ctx.step('add a container per state mode (no address requested)', async (d) => {
      for (const r of runs)
        r.first = await cniAdd(client, {
          containerId: r.containerId,
          netns: PROBES[r.mode].netns,
          config: PROBES[r.mode].config,
          deadline: d,
        });
      const listing = await readCniState(client, { deadline: d, dirs: stateDirs });
      for (const r of runs) r.stateBefore = listing.find((l) => l.dir === r.stateDir);
      // Note: a hard reset seconds after the ADD can lose the reservation file still in the page cache (it did once here,
      // with two labs in parallel); the state under test is what a long-running host has on disk, so flush it first.
      const flushed = await client.exec('sync', { deadline: d, sudo: true });
      if (flushed.code !== 0)
        throw new HarnessError(`sync on the client failed (exit ${flushed.code}): ${flushed.stderr.trim()}`);
      await bystanderBoots('before', d);
      return readBootInfo(client, d);
    });

    const reboot = await ctx.step(
      `reboot the client (${env.config.reboot.kind})`,
      (d) => lab.reboot(clientName, env.config.reboot.kind, { deadline: d, fault: faultParams(env.config) }),
      { id: STEP_IDS.fault, timeoutMs: rebootStepMs(env.config) },
    );
    recordFault(ctx, reboot);
    ctx.fact(`${clientName}.boot_id.before`, reboot.bootIdBefore);
    ctx.fact(`${clientName}.boot_id.after`, reboot.bootIdAfter);
    ctx.fact('reboot.seconds', ((reboot.backAt - reboot.requestedAt) / 1000).toFixed(1));
    ctx.mark({
      atMs: reboot.requestedAt,
      lane: 'host',
      label: `${reboot.kind} reboot requested`,
      detail: `boot_id ${reboot.bootIdBefore}`,
      severity: 'warn',
    });
    ctx.mark({
      atMs: reboot.backAt,
      lane: 'host',
      label: 'SSH back with a new boot_id',
      detail: `boot_id ${reboot.bootIdAfter}`,
      severity: 'ok',
    });

    const bootAfter = await ctx.step('add the same containers again after the reboot', async (d) => {
      const listing = await readCniState(client, { deadline: d, dirs: stateDirs });
      for (const r of runs) r.stateAfter = listing.find((l) => l.dir === r.stateDir);
      for (const r of runs)
        r.second = await cniAdd(client, {
          containerId: r.containerId,
          netns: PROBES[r.mode].netns,
          config: PROBES[r.mode].config,
          deadline: d,
        });
      await bystanderBoots('after', d);
      return readBootInfo(client, d);
    });
    ctx.fact(`${clientName}.uptime_s.after`, bootAfter.uptimeS);
    for (const r of runs) {
      ctx.fact(`cni.${r.mode}.state_dir`, r.stateDir);
      ctx.artifact(`cni-${r.mode}.json`, JSON.stringify(r, null, 2));
    }
    return judgeAll(CHECKS, { bootIdBefore: bootBefore.bootId, bootIdAfter: bootAfter.bootId, runs });
  },
});
