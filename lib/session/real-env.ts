// The real scenario environment, composed: the lab from its provider (lib/lab/providers.ts), Nomad installed over SSH
// (lib/session/agents.ts), the Nomad API through an SSH tunnel to the first server (lib/session/nomad-api.ts).
import type { HarnessConfig } from '../config/schema.js';
import { configTopology } from '../config/topology.js';
import { HarnessError } from '../errors.js';
import { upgradeNomad } from '../cluster/upgrade.js';
import type { ChooseDriver } from '../lab/kvm/accel.js';
import type { LabContext, ProvidedLab } from '../lab/provider.js';
import { providerFor } from '../lab/providers.js';
import type { Logger } from '../log/events.js';
import type { Lab, Tunnel } from '../model/lab.js';
import type { MachineRole } from '../model/topology.js';
import type { RunContext } from '../run/context.js';
import type { ScenarioEnv } from '../run/scenario.js';
import { provisionAgents, takeSnapshot } from './agents.js';
import { onHostEvidence, recordHostFacts } from './host-evidence.js';
import { NOMAD_HTTP, openNomad, openServerApis } from './nomad-api.js';

/** What a provider may touch of the run: its cleanup stack, evidence, facts and lines. */
function labContext(
  ctx: RunContext,
  o: {
    config: HarnessConfig;
    runId: string;
    roles: readonly MachineRole[];
    needsNomad: boolean;
    chooseDriver?: ChooseDriver;
  },
): LabContext {
  return {
    ...o,
    logger: ctx.logger,
    cleanup: (what, fn, opts) => void ctx.cleanup.defer(what, fn, opts),
    evidence: (what, collect) =>
      ctx.onEvidence(what, async (dd) => {
        for (const [name, text] of Object.entries(await collect(dd))) ctx.artifact(name, text);
      }),
    fact: (name, value) => ctx.fact(name, value),
    info: (message) => ctx.info(message),
  };
}

/** Close every machine's SSH connections: before the lab's teardown (LIFO) and with --keep too, so a kept lab holds
 * no connection of this process. */
function closeConnectionsAtEnd(ctx: RunContext, lab: Lab): void {
  const close = async () => void (await Promise.all(Object.values(lab.machines).map((m) => m.disconnect())));
  ctx.cleanup.defer('close the SSH connections', close, { alsoWhenKept: true });
}

/** Build the environment a scenario runs in for one run of the CLI; `chooseDriver` resolves lab.libvirt_driver
 * (shared by every run of one process: one KVM probe at most); `scenario.needsNomad` says when a warm lab's snapshot
 * is taken (after the agents are ready, or right after bring-up); `scenario.roles` the machines it brings up. */
export function createRealEnv(
  config: HarnessConfig,
  runId: string,
  logger: Logger,
  chooseDriver?: ChooseDriver,
  scenario: { needsNomad: boolean; roles?: readonly string[] } = { needsNomad: true },
): ScenarioEnv {
  const provider = providerFor(config);
  const topology = configTopology(config);
  const snapshotBeforeNomad = config.lab.warmSnapshot === 'before-nomad';
  let provided: ProvidedLab | undefined;
  const of = (lab: Lab): ProvidedLab => {
    if (provided?.lab !== lab) throw new HarnessError('this environment did not bring that lab up', { exitCode: 70 });
    return provided;
  };
  return {
    config,
    async upLab(ctx, d, opts = {}) {
      // Note: the scenario's declared roles are the default (lab.provider ssh validated hosts for exactly these)
      const roles = (opts.roles ?? scenario.roles ?? ['server', 'client']) as MachineRole[];
      // Note: a before-nomad snapshot holds the VMs alone, so its key leaves the build out and any build fits it
      const needsNomad = scenario.needsNomad && !snapshotBeforeNomad;
      const c = labContext(ctx, { config, runId, roles, needsNomad, ...(chooseDriver ? { chooseDriver } : {}) });
      provided = await provider.up(topology, c, d);
      const { lab, warm } = provided;
      closeConnectionsAtEnd(ctx, lab);
      onHostEvidence(ctx, lab);
      // Note: a scenario without Nomad (or a before-nomad snapshot) is prepared once its VMs are up
      if (warm?.decision.mode === 'create' && !needsNomad) {
        await takeSnapshot(ctx, warm, d);
      }
      // a scenario with Nomad reads them once its agents (and, on existing hosts, the CNI plugins) are in place
      if (!scenario.needsNomad) await recordHostFacts(ctx, lab, d);
      return lab;
    },
    async provisionNomad(ctx, lab, d) {
      const needsNomad = scenario.needsNomad && !snapshotBeforeNomad;
      const out = await provisionAgents(ctx, of(lab), d, { config, logger, needsNomad });
      await recordHostFacts(ctx, lab, d);
      return out;
    },
    async upgradeNomad(ctx, lab, name, binary, d) {
      const machine = lab.machines[name];
      if (!machine) throw new HarnessError(`upgrade: the lab has no ${name} machine`);
      const { version } = await upgradeNomad(machine, binary, d);
      ctx.fact(`${name}.nomad.version.upgraded`, version.split('\n')[0] ?? '');
      return { nomadVersion: version.split('\n')[0] ?? '' };
    },
    async connectNomad(ctx, lab, d) {
      const { nomad, tunnel, via } = await openNomad(lab, d, { config, logger });
      ctx.cleanup.defer('close the Nomad API tunnel', () => tunnel.close(), { alsoWhenKept: true });
      ctx.fact('nomad.api', `ssh tunnel 127.0.0.1:${tunnel.localPort} -> ${via} 127.0.0.1:${NOMAD_HTTP.port}`);
      return nomad;
    },
    async connectServers(ctx, lab, d) {
      const opened = (t: Tunnel) =>
        ctx.cleanup.defer('close a server API tunnel', () => t.close(), { alsoWhenKept: true });
      return openServerApis(lab, d, { config, logger, opened });
    },
  };
}
