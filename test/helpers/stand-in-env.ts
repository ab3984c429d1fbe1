// Wires the STAND-INS (Nomad API stand-in + stand-in lab) into the CLI, so integration tests run the
// scenario through the same code paths as a real run. Nothing here is Nomad or a VM.
import type { CliDeps } from '../../lib/cli/main.js';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import type { ScenarioEnv } from '../../lib/run/scenario.js';
import { startFakeNomad, type FakeNomad, type Timeline } from './fake-nomad/index.js';
import { createFakeLab } from './fake-lab.js';

export interface StandIn {
  nomad: FakeNomad;
  lab: ReturnType<typeof createFakeLab>;
  deps: CliDeps;
  out: string[];
  err: string[];
}

/** Start a Nomad stand-in on a timeline and CLI deps whose scenario env uses it and a stand-in lab. */
export async function standIn(timeline: Timeline, o: { token?: string; sshNeverBack?: boolean; cwd: string }): Promise<StandIn> {
  const nomad = await startFakeNomad({ timeline, clientNodeName: 'client', ...(o.token ? { token: o.token } : {}), stepMs: 20 });
  const api = createNomad({ transport: createHttpTransport({ addr: nomad.addr }), ...(o.token ? { token: o.token } : {}) });
  // An HTTP probe "answers" when a running alloc owns the address:port (bridge) or host port.
  const httpAnswers = async (url: string): Promise<boolean> => {
    const u = new URL(url);
    const { body: stubs } = await api.nodeAllocations((await api.nodes()).body[0]!.ID);
    return stubs.some((a) => a.ClientStatus === 'running' && (
      (a.NetworkStatus?.Address === u.hostname && (u.port || '80') === '80') ||
      (a.AllocatedResources?.Shared?.Ports ?? []).some((p) => String(p.Value) === u.port)));
  };
  const lab = createFakeLab({ nomad, httpAnswers, ...(o.sshNeverBack ? { sshNeverBack: true } : {}) });
  const out: string[] = [];
  const err: string[] = [];
  const makeEnv = (config: ScenarioEnv['config']): ScenarioEnv => ({
    config,
    async upLab(ctx) {
      ctx.cleanup.defer('destroy the stand-in lab', () => lab.destroy({ deadline: ctx.deadline }));
      return lab;
    },
    async provisionNomad() {
      return { nomadVersion: 'Nomad v1.9.7 (stand-in)' };
    },
    async connectNomad(ctx) {
      return createNomad({ transport: createHttpTransport({ addr: nomad.addr }), ...(config.nomad.token ? { token: config.nomad.token } : {}), logger: ctx.logger });
    },
  });
  const deps: CliDeps = {
    env: o.token ? { NOMAD_TOKEN: o.token } : {},
    cwd: o.cwd,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    isTTY: false,
    makeEnv,
  };
  return { nomad, lab, deps, out, err };
}
