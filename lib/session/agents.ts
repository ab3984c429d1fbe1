// Nomad on a lab: install and start every agent (servers form one Raft cluster, clients list every server), wait for a
// leader and every client node, and take a warm lab's snapshot of agents that are ready.
import { readFile } from 'node:fs/promises';
import { installNomad } from '../cluster/provision.js';
import { jobsUseRawExec } from '../parse/nomad-job.js';
import type { HarnessConfig } from '../config/schema.js';
import type { ProvidedLab } from '../lab/provider.js';
import type { WarmLab } from '../lab/warm/warm-lab.js';
import type { Logger } from '../log/events.js';
import { namedMachinesOf, type Lab, type Machine } from '../model/lab.js';
import { BRIDGE_CNI_ATTRIBUTES, waitForLeader, waitForNodeReady } from '../nomad/wait.js';
import type { RunContext } from '../run/context.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';
import { openNomad } from './nomad-api.js';

/** The client agent's own view of its node (`nomad node status -self`, answered through its RPC to a server). */
const NODE_SELF = 'NOMAD_ADDR=http://127.0.0.1:4646 /usr/local/bin/nomad node status -self -short';

/** After a revert: the client agent answers and says its node is ready (its RPC to the servers works again). */
async function waitClientAgentReady(name: string, client: Machine, d: Deadline): Promise<void> {
  await waitFor(
    `the client agent of ${name} to report its node ready after the revert (nomad node status -self)`,
    async (dd) => {
      const r = await client.exec(NODE_SELF, { deadline: deadlineIn(20_000, dd) }).catch((e: Error) => ({
        code: -1,
        stdout: '',
        stderr: e.message,
      }));
      const status = /^Status\s*=\s*(\S+)/m.exec(r.stdout)?.[1];
      if (r.code === 0 && status === 'ready') return { done: true, value: undefined };
      const said = r.code === 0 ? `status ${status ?? '?'}` : `exit ${r.code}: ${r.stderr.trim().split('\n').at(-1)}`;
      return { done: false, reason: said };
    },
    { deadline: d },
  );
}

/** A leader, and every client node ready (by its slot name) with its CNI plugins fingerprinted. */
async function agentsReady(
  ctx: RunContext,
  lab: Lab,
  d: Deadline,
  o: { config: HarnessConfig; logger: Logger; when: string },
): Promise<void> {
  const { nomad, tunnel } = await openNomad(lab, d, o);
  try {
    await waitForLeader(nomad, { deadline: d });
    const clients = namedMachinesOf(lab, 'client').map(([name]) => name);
    const attributes = BRIDGE_CNI_ATTRIBUTES;
    const driver = o.config.task.driver;
    await Promise.all(
      clients.map((nodeName) => waitForNodeReady(nomad, { nodeName, driver, attributes }, { deadline: d })),
    );
    ctx.info(`a leader and the client node${clients.length > 1 ? 's' : ''} ${clients.join(', ')} ready ${o.when}`);
  } finally {
    await tunnel.close();
  }
}

/** Record a warm lab's snapshot as facts and a line. */
export async function takeSnapshot(
  ctx: RunContext,
  warm: WarmLab,
  d: Deadline,
  extra?: Parameters<WarmLab['snapshot']>[1],
) {
  const tookMs = await warm.snapshot(d, extra);
  ctx.fact('lab.snapshot.created', `yes, in ${(tookMs / 1000).toFixed(1)} s`);
  ctx.info(`warm lab snapshot ${warm.key} taken in ${(tookMs / 1000).toFixed(1)} s (${warm.dir})`);
}

/**
 * Install the build on every machine and start the agents: each server with bootstrap_expect = the number of servers
 * and every server to join, each client with every server; node names are the slot names. A reverted warm lab has
 * them running already: wait for them as the servers see them now.
 */
export async function provisionAgents(
  ctx: RunContext,
  provided: ProvidedLab,
  d: Deadline,
  o: { config: HarnessConfig; logger: Logger; needsNomad: boolean },
): Promise<{ nomadVersion: string }> {
  const { lab, warm } = provided;
  const { config } = o;
  const snap = warm?.decision.mode === 'reuse' ? warm.record.snapshot : undefined;
  // raw_exec is off in Nomad by default: the clients enable it only when a job of the run uses it (a warm
  // lab's key holds this too: lib/lab/warm/warm-lab.ts)
  const rawExec = await jobsUseRawExec(config.job.files, (f) => readFile(f, 'utf8'));
  ctx.fact(
    'client.raw_exec',
    rawExec ? 'enabled: a job of the run uses the raw_exec driver' : "off (Nomad's default: no job of the run uses it)",
  );
  if (warm && snap?.nomadVersion !== undefined) {
    await agentsReady(ctx, lab, d, { ...o, when: 'after the revert' });
    for (const [name, client] of namedMachinesOf(lab, 'client')) await waitClientAgentReady(name, client, d);
    for (const [name, text] of Object.entries(snap.agentConfigs ?? {})) ctx.artifact(`${name}-nomad.hcl`, text);
    return { nomadVersion: snap.nomadVersion };
  }
  const machines = Object.entries(lab.machines);
  const ips: Record<string, string> = {};
  for (const [name] of machines) ips[name] = await provided.agentAddress(name, d);
  if (provided.agentInterface) for (const [name, ip] of Object.entries(ips)) ctx.fact(`${name}.agent_address`, ip);
  const serverIps = namedMachinesOf(lab, 'server').map(([name]) => ips[name]!);
  const results = await Promise.all(
    machines.map(async ([name, m]) => {
      const client = m.role === 'client';
      const iface = client && provided.agentInterface ? await provided.agentInterface(name, ips[name]!, d) : undefined;
      if (iface) ctx.fact(`${name}.network_interface`, iface);
      const r = await installNomad(m, {
        binaryPath: config.nomadBinary!,
        role: m.role as 'server' | 'client',
        deadline: d,
        vars: {
          private_ip: ips[name]!,
          node_name: name,
          server_ips: serverIps,
          bootstrap_expect: serverIps.length,
          heartbeat_grace: config.nomad.heartbeatGrace,
          raw_exec: rawExec,
          ...(iface ? { network_interface: iface } : {}),
        },
      });
      ctx.artifact(`${name}-nomad.hcl`, r.config);
      return [name, r] as const;
    }),
  );
  const nomadVersion = results[0]![1].version.split('\n')[0] ?? '';
  if (warm?.decision.mode === 'create' && o.needsNomad) {
    // The snapshot holds agents that are ready: a leader, every client node ready with its CNI plugins fingerprinted.
    const ready = await agentsReady(ctx, lab, d, { ...o, when: 'before the snapshot' }).then(
      () => true,
      (err: Error) => {
        const message = `no warm lab snapshot taken: ${err.message.split('\n')[0]}`;
        ctx.logger({ kind: 'warn', t: ctx.elapsed(), message });
        return false;
      },
    );
    const agentConfigs = Object.fromEntries(results.map(([name, r]) => [name, r.config]));
    if (ready) await takeSnapshot(ctx, warm, d, { nomadVersion, agentConfigs });
  }
  return { nomadVersion };
}
