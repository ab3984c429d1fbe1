// The client node, ready for bridge jobs: its driver healthy and every CNI plugin Nomad constrains bridge jobs on
// fingerprinted. Nomad fingerprints the plugins once per agent start, giving each 3 s to print its version; with
// four emulated VMs on two cores that was missed (first real docker runs: once bridge, once host-local), leaving the
// job unplaced. Before any job exists, one agent restart is harmless and fingerprints again; a second miss is an
// infrastructure error naming the attribute.
import type { ApiNode } from '../nomad/api-types.js';
import type { Nomad } from '../nomad/client.js';
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import type { RunContext } from '../run/context.js';
import { HarnessError, TerminalStateError } from '../errors.js';
import { BRIDGE_CNI_ATTRIBUTES, missingAttributes, waitForNodeReady } from '../nomad/wait.js';

export async function waitForBridgeClient(
  ctx: Pick<RunContext, 'logger' | 'elapsed' | 'fact'>,
  nomad: Nomad,
  client: Machine,
  sel: { nodeName: string; driver: string },
  d: Deadline,
): Promise<ApiNode> {
  const want = { ...sel, attributes: BRIDGE_CNI_ATTRIBUTES };
  try {
    return await waitForNodeReady(nomad, want, { deadline: d });
  } catch (err) {
    if (!(err instanceof TerminalStateError)) throw err;
    // The node itself says whether a plugin is missing (not the wording of the error).
    const stub = (await nomad.nodes({ signal: d.signal })).body.find((n) => n.Name === sel.nodeName);
    const node = stub && (await nomad.node(stub.ID, { signal: d.signal })).body;
    if (!stub || !node || missingAttributes(node, BRIDGE_CNI_ATTRIBUTES).length === 0) throw err;
    ctx.logger({
      kind: 'warn',
      t: ctx.elapsed(),
      message: `${err.message.split('\n')[0]}; restarting the client agent once (no job runs yet) so it fingerprints again`,
    });
    ctx.fact(`${sel.nodeName}.agent_restarted_for_fingerprint`, 'yes');
    const r = await client.exec('systemctl restart nomad.service', { deadline: d, sudo: true });
    if (r.code !== 0)
      throw new HarnessError(
        `${client.name}: systemctl restart nomad.service exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
    return waitForNodeReady(
      nomad,
      { ...want, ...(stub ? { modifiedAfterIndex: stub.ModifyIndex } : {}) },
      { deadline: d },
    );
  }
}
