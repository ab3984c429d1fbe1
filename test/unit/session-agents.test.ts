// provisionAgents on stand-in machines of a 3+2 lab: every agent installed with its slot name as node name, the
// servers as one Raft cluster, each client listing every server; artifacts and facts named by slot name.
import t from 'tap';
import { DEFAULTS } from '../../lib/config/schema.js';
import { provisionAgents } from '../../lib/session/agents.js';
import { RunContext } from '../../lib/run/context.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { ExecOptions, Lab, Machine } from '../../lib/model/lab.js';
import type { ProvidedLab } from '../../lib/lab/provider.js';

/** A machine that answers every command with exit 0 and records the agent config written through stdin. */
function machine(role: 'server' | 'client', written: Map<string, string>, slot: string): Machine {
  return {
    role,
    name: `r-${slot}`,
    async exec(cmd: string, o: ExecOptions) {
      if (cmd.includes('/etc/nomad.d/nomad.hcl') && o.stdin !== undefined) written.set(slot, String(o.stdin));
      return { code: 0, stdout: cmd.endsWith('nomad version') ? 'Nomad v1.10.5\n' : '', stderr: '', durationMs: 1 };
    },
    async upload() {},
    async writeFile() {},
    async bootId() {
      return 'b';
    },
    async forward() {
      throw new Error('unused: no Nomad API here');
    },
    async disconnect() {},
  };
}

t.test('a 3+2 lab: one Raft cluster of three, clients listing all three, names by slot', async (t) => {
  const written = new Map<string, string>();
  const slots = ['server-1', 'server-2', 'server-3', 'client-1', 'client-2'];
  const machines = Object.fromEntries(
    slots.map((s) => [s, machine(s.startsWith('server') ? 'server' : 'client', written, s)]),
  );
  const ip = (s: string) => `10.199.0.${10 + slots.indexOf(s)}`;
  const lab = { id: 'r', machines } as unknown as Lab;
  const provided: ProvidedLab = {
    lab,
    agentAddress: async (name) => ip(name),
    agentInterface: async (name) => `ens-${name}`,
  };
  const ctx = new RunContext({ runId: 'r', scenario: 's', logger: () => {}, deadline: deadlineIn(30_000) });
  const config = { ...DEFAULTS, nomadBinary: process.execPath };
  const r = await provisionAgents(ctx, provided, deadlineIn(20_000), { config, logger: () => {}, needsNomad: true });
  t.equal(r.nomadVersion, 'Nomad v1.10.5');
  t.same([...written.keys()].sort(), [...slots].sort(), 'every machine got its agent config');
  const servers = '"10.199.0.10", "10.199.0.11", "10.199.0.12"';
  for (const s of ['server-1', 'server-2', 'server-3']) {
    const hcl = written.get(s)!;
    t.match(hcl, `name                 = "${s}"`, `${s}: node name`);
    t.match(hcl, /bootstrap_expect = 3\n/, `${s}: bootstrap_expect 3`);
    t.match(hcl, `retry_join = [${servers}]`, `${s}: joins every server`);
    t.match(hcl, `bind_addr = "${ip(s)}"`);
  }
  for (const c of ['client-1', 'client-2']) {
    const hcl = written.get(c)!;
    t.match(hcl, `name                 = "${c}"`);
    t.match(hcl, 'servers           = ["10.199.0.10:4647", "10.199.0.11:4647", "10.199.0.12:4647"]');
    t.match(hcl, `network_interface = "ens-${c}"`, 'the interface its provider named');
  }
  t.same(
    ctx.pendingArtifacts.map((a) => a.name).sort(),
    slots.map((s) => `${s}-nomad.hcl`).sort(),
    'one agent config artifact per machine, by slot name',
  );
  t.equal(ctx.properties['client-2.agent_address'], '10.199.0.14');
  t.equal(ctx.properties['client-2.network_interface'], 'ens-client-2');
  t.notOk('server-1.network_interface' in ctx.properties, 'servers have no network_interface');
});
