// Wires the STAND-INS (Nomad API stand-in + stand-in lab) into the CLI, so integration tests run the
// scenario through the same code paths as a real run. Nothing here is Nomad or a VM.
import type { CliDeps } from '../../lib/cli/deps.js';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import type { ScenarioEnv } from '../../lib/run/scenario.js';
import { HarnessError } from '../../lib/errors.js';
import { startFakeNomad, type FakeNomad, type ServerRebootEffect, type Timeline } from './fake-nomad/index.js';
import { createFakeLab } from './fake-lab.js';
import { createFakeClusterLab } from './fake-cluster-lab.js';
import { slotName, type Topology } from '../../lib/model/topology.js';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { JobConverter } from '../../lib/cluster/job-convert.js';
import { varFile } from '../../lib/steps/job-input.js';
import { parseJobHcl } from './fake-nomad/job-parse.js';
import { jobForLine } from './fake-nomad/payloads.js';
import { showOnTimeout } from './timeout-dump.js';

/**
 * A STAND-IN for `nomad job run -output` (no Nomad binary on the host in this tier): the stand-in's HCL reader, answering
 * `{"Job": ...}` shaped as the build's line (`lineOf` the build's path: its version, 1.9.7 when unknown) or an error
 * worded like Nomad's. The real conversion is tested in test/e2e with a real build.
 */
export const standInConverter =
  (lineOf: (nomadBinary: string) => string | undefined = () => undefined): JobConverter =>
  async ({ nomadBinary, file, vars }) => {
    try {
      const job = parseJobHcl(await readFile(file, 'utf8'), varFile(vars));
      return { ok: true, job: { Job: jobForLine(job, lineOf(nomadBinary) ?? '1.9.7') } };
    } catch (err) {
      return {
        ok: false,
        message: `Error getting job struct: Error parsing job file from ${file}: | ${basename(file)}: ${(err as Error).message}`,
      };
    }
  };

/** The stand-in `nomad job run -output` of a 1.9 build (or the line in the build's path). */
export const standInConvertJob: JobConverter = standInConverter(versionInPath);
import { durationSeconds } from '../../lib/config/durations.js';
import { sleep } from '../../lib/time/deadlines.js';
import { recordHostFacts } from '../../lib/session/host-evidence.js';
import { namedMachinesOf } from '../../lib/model/lab.js';
import { SERVER_HEADER } from './fake-nomad/servers.js';

export interface StandIn {
  nomad: FakeNomad;
  lab: ReturnType<typeof createFakeLab>;
  deps: CliDeps;
  out: string[];
  err: string[];
}

/**
 * A stand-in lab answering from `nomad`: an HTTP probe "answers" when a running alloc of the client node owns the
 * address:port (bridge) or the host port. It reads the stand-in's state, not its API: the client's tasks keep serving
 * while the server (and with it the API) is down.
 */
function labOn(
  nomad: FakeNomad,
  o: { sshNeverBack?: boolean; dockerVersion?: string },
): ReturnType<typeof createFakeLab> {
  const httpAnswers = async (url: string): Promise<boolean> => {
    const u = new URL(url);
    const c = nomad.cluster;
    // the bridge address answers on each mapped port's `to` (80 for the shipped jobs), the host on each port's value
    return [...c.allocs.values()].some(
      (a) =>
        a.NodeID === c.node.ID &&
        a.ClientStatus === 'running' &&
        ((a.NetworkStatus?.Address === u.hostname &&
          (a.AllocatedResources?.Shared?.Ports ?? []).some((p) => String(p.To) === (u.port || '80'))) ||
          (a.AllocatedResources?.Shared?.Ports ?? []).some((p) => String(p.Value) === u.port)),
    );
  };
  return createFakeLab({
    nomad,
    httpAnswers,
    ...(o.sshNeverBack ? { sshNeverBack: true } : {}),
    ...(o.dockerVersion ? { dockerVersion: o.dockerVersion } : {}),
  });
}

/** The parts of a stand-in ScenarioEnv after the lab is up: provision, connect and upgrade against `nomad()`. */
function envOn(
  config: ScenarioEnv['config'],
  nomad: () => FakeNomad,
  installed: () => string,
  versionOf: (binary: string) => string | undefined,
): Omit<ScenarioEnv, 'config' | 'upLab'> {
  return {
    async provisionNomad(ctx, lab, d) {
      // as lib/session/real-env.ts: each machine's kernel and CNI plugins, once the agents are in place
      await recordHostFacts(ctx, lab, d);
      return { nomadVersion: `Nomad v${installed()} (stand-in)` };
    },
    async connectNomad(ctx) {
      return createNomad({
        transport: createHttpTransport({ addr: nomad().addr }),
        ...(config.nomad.token ? { token: config.nomad.token } : {}),
        logger: ctx.logger,
        retry5xxMs: config.nomad.retryForS * 1000,
      });
    },
    // each server's own API: the stand-in answers a request naming a server from that server's view (servers.ts)
    async connectServers(ctx, lab) {
      const base = createHttpTransport({ addr: nomad().addr });
      const named = (server: string): typeof base =>
        Object.assign(
          (req: Parameters<typeof base>[0]) => base({ ...req, headers: { ...req.headers, [SERVER_HEADER]: server } }),
          {},
        );
      return Object.fromEntries(
        namedMachinesOf(lab, 'server').map(([slot]) => [
          slot,
          createNomad({
            transport: named(slot),
            ...(config.nomad.token ? { token: config.nomad.token } : {}),
            logger: ctx.logger,
          }),
        ]),
      );
    },
    async upgradeNomad(_ctx, _lab, _role, binary) {
      const version = versionOf(binary);
      nomad().clientRestart(version);
      return { nomadVersion: `Nomad v${version ?? '1.9.7'} (stand-in)` };
    },
  };
}

/** The settle quiet period in stand-in time: a stand-in step is 20 ms, not seconds, so half a second is plenty of quiet. */
export const STAND_IN_QUIET_S = 0.5;
/** The settle confirmation window in stand-in time: the stand-in answers in ms, so its reads are never seconds apart. */
export const STAND_IN_CONFIRM_S = 0.2;
/** The probe series' interval in the stand-ins. */
export const STAND_IN_PROBE_INTERVAL = '20ms';
const standInTime = (config: ScenarioEnv['config']): ScenarioEnv['config'] => ({
  ...config,
  reboot: {
    ...config.reboot,
    settleQuietS: Math.min(config.reboot.settleQuietS, STAND_IN_QUIET_S),
    settleConfirmS: Math.min(config.reboot.settleConfirmS, STAND_IN_CONFIRM_S),
    // the stand-in's faults last milliseconds: probe often enough to see them
    probeInterval: STAND_IN_PROBE_INTERVAL,
  },
});

/** CLI deps collecting stdout/stderr, no TTY, with the stand-in env factory. */
function depsWith(
  makeEnv: CliDeps['makeEnv'],
  o: { cwd: string; token?: string },
  out: string[],
  err: string[],
  versionOf: (path: string) => string | undefined = versionInPath,
  lineOf: (path: string) => string | undefined = versionInPath,
): CliDeps {
  // Note: a stand-in build is no file the host can run; `<build> version` is answered from the build's stand-in table.
  const buildVersion = async (path: string) => {
    const v = versionOf(path);
    return v ? { version: v, revision: 'stand-in' } : {};
  };
  return {
    env: o.token ? { NOMAD_TOKEN: o.token } : {},
    cwd: o.cwd,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    isTTY: false,
    makeEnv,
    buildVersion,
    convertJob: standInConverter(lineOf),
  };
}

/** Start a Nomad stand-in on a timeline and CLI deps whose scenario env uses it and a stand-in lab. */
export async function standIn(
  timeline: Timeline,
  o: {
    token?: string;
    sshNeverBack?: boolean;
    cwd: string;
    dockerVersion?: string;
    serverReboot?: ServerRebootEffect;
    /** how long the stand-in bring-up and Nomad install take (interruptible), so a signal can come in the middle */
    upMs?: number;
    provisionMs?: number;
  },
): Promise<StandIn> {
  const nomad = await startFakeNomad({
    timeline,
    clientNodeName: 'client',
    stepMs: 20,
    ...(o.token ? { token: o.token } : {}),
    ...(o.dockerVersion ? { dockerVersion: o.dockerVersion } : {}),
    ...(o.serverReboot ? { serverReboot: o.serverReboot } : {}),
  });
  const lab = labOn(nomad, o);
  const out: string[] = [];
  const err: string[] = [];
  showOnTimeout(`a stand-in run (${timeline})`, err, () => [nomad]);
  const makeEnv = (config: ScenarioEnv['config']): ScenarioEnv => {
    const rest = envOn(
      config,
      () => nomad,
      () => '1.9.7',
      versionInPath,
    );
    return {
      config: standInTime(config),
      async upLab(ctx, d) {
        lab.heartbeatGraceMs = durationSeconds(config.nomad.heartbeatGrace) * 1000;
        ctx.cleanup.defer('destroy the stand-in lab', () => lab.destroy({ deadline: ctx.deadline }));
        // as lib/session/real-env.ts: the lab's evidence is registered before the bring-up
        ctx.onEvidence('lab: stand-in console', async (dd) => {
          for (const [name, text] of Object.entries(await lab.collectEvidence({ deadline: dd })))
            ctx.artifact(name, text);
        });
        if (o.upMs) await sleep(o.upMs, d);
        return lab;
      },
      // Note: this stand-in client always starts as 1.9.7; after an upgrade it reports the version in the build's path
      ...rest,
      async provisionNomad(ctx, l, d) {
        if (o.provisionMs) await sleep(o.provisionMs, d);
        return rest.provisionNomad(ctx, l, d);
      },
    };
  };
  const deps = depsWith(makeEnv, o, out, err, (path) => versionInPath(path) ?? '1.9.7');
  return { nomad, lab, deps, out, err };
}

/** What one build behaves like in the stand-ins: the timeline its client follows and the version it reports. */
export interface StandInBuild {
  timeline: Timeline;
  version: string;
  /** the lab never comes up (an infrastructure error before any verdict), for the first `failUpLab` runs of this build */
  failUpLab?: number;
}

/** One run's stand-ins, as the per-run deps created them. */
export interface StandInRun {
  runId: string;
  binary: string;
  nomad: FakeNomad;
  lab: ReturnType<typeof createFakeLab>;
  config: ScenarioEnv['config'];
}

/**
 * CLI deps where EVERY run gets a fresh Nomad stand-in and stand-in lab (as every real run gets fresh VMs), on the
 * timeline of the build it installs (config.nomadBinary looked up in `builds`). For compare and matrix tests.
 */
export function standInPerRun(
  builds: Record<string, StandInBuild>,
  o: { cwd: string; token?: string },
): { deps: CliDeps; out: string[]; err: string[]; runs: StandInRun[] } {
  const out: string[] = [];
  const err: string[] = [];
  const runs: StandInRun[] = [];
  showOnTimeout('the stand-in runs of one command', err, () => runs.map((r) => r.nomad));
  const upFailures = new Map<string, number>();
  const buildOf = (binary: string | undefined): StandInBuild => {
    const b = binary === undefined ? undefined : builds[binary];
    if (!b) throw new Error(`stand-in: no build registered for ${String(binary)}`);
    return b;
  };
  const makeEnv = (config: ScenarioEnv['config'], runId: string): ScenarioEnv => {
    let run: StandInRun | undefined;
    const need = (): StandInRun => {
      if (!run) throw new Error('stand-in: upLab() was not called');
      return run;
    };
    return {
      config: standInTime(config),
      async upLab(ctx) {
        const b = buildOf(config.nomadBinary);
        const failed = upFailures.get(config.nomadBinary!) ?? 0;
        if (failed < (b.failUpLab ?? 0)) {
          upFailures.set(config.nomadBinary!, failed + 1);
          throw new HarnessError('stand-in: vagrant up failed (simulated infrastructure error)');
        }
        const nomad = await startFakeNomad({
          timeline: b.timeline,
          clientNodeName: 'client',
          nomadVersion: b.version,
          ...(o.token ? { token: o.token } : {}),
          stepMs: 20,
        });
        const lab = labOn(nomad, {});
        run = { runId, binary: config.nomadBinary!, nomad, lab, config };
        runs.push(run);
        ctx.cleanup.defer('stop the Nomad stand-in', () => nomad.close());
        ctx.cleanup.defer('destroy the stand-in lab', () => lab.destroy({ deadline: ctx.deadline }));
        return lab;
      },
      ...envOn(
        config,
        () => need().nomad,
        () => buildOf(config.nomadBinary).version,
        (binary) => builds[binary]?.version ?? versionInPath(binary),
      ),
    };
  };
  const deps = depsWith(
    makeEnv,
    o,
    out,
    err,
    (path) => Object.entries(builds).find(([k]) => path === k || path.endsWith(k))?.[1].version ?? versionInPath(path),
  );
  return { deps, out, err, runs };
}

/** "1.9.7" from a stand-in build path such as /stand-in/nomad-1.9.7 (the stand-in agent reports it after an upgrade). */
function versionInPath(path: string): string | undefined {
  return /(\d+\.\d+\.\d+)/.exec(path)?.[1];
}

/**
 * A Nomad stand-in and CLI deps whose scenario env uses it and a stand-in lab of `topology` (test/helpers/
 * fake-cluster-lab.ts): the stand-in's primary client node is the first client, the others are registered beside it.
 */
export async function standInCluster(
  topology: Topology,
  o: { cwd: string; timeline?: Timeline; nomadVersion?: string; electionSteps?: number },
): Promise<{
  nomad: FakeNomad;
  lab: ReturnType<typeof createFakeClusterLab>;
  deps: CliDeps;
  out: string[];
  err: string[];
}> {
  const nomad = await startFakeNomad({
    timeline: o.timeline ?? 'restored',
    clientNodeName: slotName(topology, 'client', 1),
    stepMs: 20,
    ...(o.nomadVersion ? { nomadVersion: o.nomadVersion } : {}),
    ...(o.electionSteps ? { electionSteps: o.electionSteps } : {}),
  });
  const lab = createFakeClusterLab(nomad, topology);
  const out: string[] = [];
  const err: string[] = [];
  showOnTimeout('a stand-in cluster run', err, () => [nomad]);
  const makeEnv = (config: ScenarioEnv['config']): ScenarioEnv => ({
    config: standInTime(config),
    async upLab(ctx) {
      ctx.cleanup.defer('destroy the stand-in lab', () => lab.destroy({ deadline: ctx.deadline }));
      return lab;
    },
    ...envOn(
      config,
      () => nomad,
      () => o.nomadVersion ?? '1.9.7',
      versionInPath,
    ),
  });
  // the build's `job run -output` is the line the stand-in plays (its jobspec shape: volume requests' Sticky from 1.10)
  const lineOf = (path: string) => versionInPath(path) ?? o.nomadVersion;
  return { nomad, lab, deps: depsWith(makeEnv, o, out, err, versionInPath, lineOf), out, err };
}
