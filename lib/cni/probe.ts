// Thin adapter: install vms/cni/cni-probe.sh on a machine and run its ADD/DEL/reset there (all decisions stay pure).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { HarnessError } from '../errors.js';
import { quote } from '../shell/quote.js';
import { CNI_PROBE_REMOTE_PATH, cniCall, cniResetCommand } from './commands.js';
import { parseProbeOutput, type CniOutcome } from '../parse/cni-result.js';
import type { BridgeConfigOptions } from './config.js';

/** The probe script in this checkout. */
export const CNI_PROBE_LOCAL_PATH = fileURLToPath(new URL('../../vms/cni/cni-probe.sh', import.meta.url));

async function sudo(machine: Machine, what: string, cmd: string, deadline: Deadline, stdin?: string): Promise<string> {
  const r = await machine.exec(cmd, { deadline, sudo: true, ...(stdin === undefined ? {} : { stdin }) });
  if (r.code !== 0)
    throw new HarnessError(
      `${machine.name}: ${what} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`,
    );
  return r.stdout;
}

/** Copy the probe script to CNI_PROBE_REMOTE_PATH (persistent, so it can run again after the reboot). */
export async function installCniProbe(machine: Machine, opts: { deadline: Deadline }): Promise<void> {
  const text = await readFile(CNI_PROBE_LOCAL_PATH, 'utf8');
  await sudo(
    machine,
    'installing cni-probe.sh',
    `install -D -m 0755 /dev/stdin ${quote(CNI_PROBE_REMOTE_PATH)}`,
    opts.deadline,
    text,
  );
}

type CniCallOptions = { containerId: string; netns: string; config?: BridgeConfigOptions; deadline: Deadline };

/** CNI ADD or DEL through the real bridge + host-local plugins on the machine; the plugin's verdict is data. */
async function cniOp(machine: Machine, op: 'add' | 'del', opts: CniCallOptions): Promise<CniOutcome> {
  const call = cniCall(op, opts.containerId, opts.netns, opts.config);
  return parseProbeOutput(await sudo(machine, `cni-probe ${op}`, call.cmd, opts.deadline, call.stdin));
}

/** CNI ADD (no IP requested, as Nomad on restore). */
export const cniAdd = (machine: Machine, opts: CniCallOptions): Promise<CniOutcome> => cniOp(machine, 'add', opts);

/** Delete the probe netns, the state dirs and the bridge: a clean slate. */
export async function cniReset(
  machine: Machine,
  opts: { netns: string; stateDirs: readonly string[]; deadline: Deadline },
): Promise<void> {
  await sudo(machine, 'cni-probe reset', cniResetCommand(opts.netns, opts.stateDirs), opts.deadline);
}
