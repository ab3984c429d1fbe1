// The Lab on real VMs: Vagrant brings machines up from a LabSpec, SSH reaches them, the hypervisor resets them.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HarnessError, type TimeoutError } from '../../errors.js';
import { runCommand, type RunCommand } from '../../exec/run.js';
import type { Logger } from '../../log/events.js';
import { deadlineIn, type Deadline } from '../../time/deadlines.js';
import { SshMachine, type SshMachineOptions } from '../../ssh/client.js';
import { quote } from '../../shell/quote.js';
import { hardReset, leftoverVms, libvirtDomainNames, power, readMachineId } from '../../vagrant/hypervisor.js';
import { sshTargetFor } from '../../parse/ssh-config.js';
import { MILESTONE_TEXT } from '../../parse/vagrant-progress.js';
import { createVagrant, type VagrantOptions } from '../../vagrant/vagrant.js';
import { currentNetns } from '../host/host.js';
import { LAB_SPEC_FILE, TEARDOWN_FAILED_FILE, serialLogPath, slotOf, type LabSpec } from '../../model/lab-spec.js';
import type { FaultParams, Lab, RebootKind } from '../../model/lab.js';
import { notBackError, type ConsoleSource } from '../not-back.js';
import { perform, type FaultTarget } from '../perform.js';
import { VAGRANT_PERFORMERS } from './vagrant-faults.js';

/** Budget of the destroy registered on the cleanup stack (destroying two VMs took ~6 s; the lock may be held by another run's up). */
const CLEANUP_DESTROY_MS = 10 * 60_000;
/** Serial logs can be large; keep their tail. */
const SERIAL_TAIL_BYTES = 256 * 1024;

interface VagrantLabOptions {
  spec: LabSpec;
  /** the run's Vagrant directory (VAGRANT_CWD); created if missing */
  vagrantDir: string;
  /** vms/Vagrantfile; copied into vagrantDir (it reads lab-spec.json next to itself or HARNESS_LAB_SPEC) */
  vagrantfile: string;
  logger?: Logger;
  /** register teardown; called BEFORE anything is created; `keptAs` says what --keep leaves instead */
  cleanup: (what: string, fn: () => Promise<void>, opts?: { keptAs?: () => string }) => void;
  /** local commands (vagrant, virsh, VBoxManage); tests inject */
  run?: RunCommand;
  /** extra Vagrant adapter options (env, lockDir, bin) */
  vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'run' | 'logger'>>;
  /** extra SSH options (bootIdCommand, connectTimeoutMs) */
  ssh?: Partial<Pick<SshMachineOptions, 'bootIdCommand' | 'connectTimeoutMs' | 'streamOutput'>>;
  /**
   * a warm lab (lib/lab/warm/warm-lab.ts): its own cleanup entry instead of `vagrant destroy` (it parks the lab, or destroys
   * it with the `destroy` it is given when no snapshot was taken)
   */
  teardown?: { what: string; fn: (destroy: () => Promise<void>) => Promise<void> };
}

/** Name of the artifact holding what `vagrant up` printed (kept even when up failed or was interrupted). */
export const VAGRANT_UP_LOG = 'vagrant-up.log';

/**
 * Prepare a lab from `spec`; `up()` creates the VMs (destroy registered first) and returns the Lab; `attach()` returns
 * the Lab of VMs that already run in `vagrantDir` (a reverted warm lab), from the ssh-config `up()` wrote there.
 * `collectEvidence` works before and after up, so a run whose first `vagrant up` fails still keeps its output and
 * serial consoles.
 */
export function createVagrantLab(o: VagrantLabOptions): {
  up(opts: { deadline: Deadline }): Promise<Lab>;
  attach(): Promise<Lab>;
  collectEvidence(opts: { deadline: Deadline }): Promise<Record<string, string>>;
} {
  const { spec, vagrantDir, logger, run = runCommand } = o;
  const specPath = path.join(vagrantDir, LAB_SPEC_FILE);
  const vagrant = createVagrant({
    ...o.vagrant,
    cwd: vagrantDir,
    run,
    logger,
    env: { ...o.vagrant?.env, HARNESS_LAB_SPEC: specPath },
  });
  const names = spec.machines.map((m) => m.name);
  const machines: Record<string, SshMachine> = {};
  const ids: Record<string, string> = {};
  /** what `vagrant up` printed so far (readable lines), or undefined before it ran */
  let upTranscript: string[] | undefined;
  /** every machine's SSH details are known (bring-up finished, or a warm lab attached): there is something to log in to */
  let connected = false;
  let destroying: Promise<void> | undefined;

  async function destroy({ deadline }: { deadline: Deadline }): Promise<void> {
    destroying ??= (async () => {
      await Promise.all(Object.values(machines).map((m) => m.disconnect()));
      await vagrant.destroy(names, { provider: spec.provider, deadline });
      const left = await leftoverVms(
        spec.provider,
        {
          names: spec.provider === 'libvirt' ? names.flatMap((n) => libvirtDomainNames(vagrantDir, n)) : [],
          ids: Object.values(ids),
        },
        { deadline, run, logger },
      );
      if (left.length) {
        const how =
          spec.provider === 'libvirt'
            ? left
                .map(
                  (d) =>
                    `virsh -c qemu:///system destroy ${quote(d)}; virsh -c qemu:///system undefine ${quote(d)} --remove-all-storage`,
                )
                .join('\n')
            : left.map((i) => `VBoxManage unregistervm ${quote(i)} --delete`).join('\n');
        throw new HarnessError(`vagrant destroy left VMs of run ${spec.runId}: ${left.join(', ')}`, {
          hint: `remove them by hand:\n${how}`,
        });
      }
      // Nothing of the run is left: its Vagrant directory goes too (kept when destroy failed, so `destroy <run-id>` still finds it).
      await fs.rm(vagrantDir, { recursive: true, force: true });
      // Note: libvirt leaves each VM's serial log behind; the evidence step copied it into the run's artifacts already.
      const serialLogs = spec.provider === 'libvirt' ? names.map((n) => serialLogPath(spec, n)) : [];
      await Promise.all(serialLogs.map((f) => fs.rm(f, { force: true })));
    })();
    try {
      await destroying;
    } catch (err) {
      destroying = undefined; // a later attempt may succeed
      await markTeardownFailed(vagrantDir, err);
      throw err;
    }
  }

  function describe(): string {
    const ns = currentNetns();
    const inNs = ns ? `ip netns exec ${quote(ns)} ` : '';
    const cwd = `VAGRANT_CWD=${quote(vagrantDir)}`;
    const destroyLine = `  destroy:  reboot-harness destroy ${spec.runId}   (by hand: ${inNs}env ${cwd} vagrant destroy -f)`;
    // Note: without the ssh-config bring-up writes there is no machine to log in to: say so, not how to
    if (!connected)
      return [
        `lab ${spec.runId} (${spec.provider}) in ${vagrantDir}: its bring-up never finished, so there is nothing to log in to (${VAGRANT_UP_LOG} in the run's reports says why); what vagrant made is left as it is`,
        destroyLine,
      ].join('\n');
    return [
      `lab ${spec.runId} (${spec.provider}) in ${vagrantDir}`,
      `  log in:  reboot-harness login ${spec.runId} [${spec.machines.map(slotOf).join('|')}]   (list: reboot-harness list-labs)`,
      ...spec.machines.map(
        (m) =>
          `  ssh ${slotOf(m)}:  ${inNs}ssh -F ${quote(path.join(vagrantDir, 'ssh-config'))} ${quote(m.name)}   (or: ${inNs}env ${cwd} vagrant ssh ${quote(m.name)})`,
      ),
      destroyLine,
    ].join('\n');
  }

  async function collectEvidence({ deadline }: { deadline: Deadline }): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    out['vagrant-status.txt'] = await vagrant
      .statusText({ deadline })
      .catch((err: Error) => `vagrant status failed: ${err.message}`);
    out[VAGRANT_UP_LOG] = upTranscript
      ? `${upTranscript.join('\n')}\n`
      : 'vagrant up was not run (the run ended before it)\n';
    if (spec.provider === 'libvirt') {
      for (const m of spec.machines) {
        const file = serialLogPath(spec, m.name);
        try {
          const buf = await fs.readFile(file);
          out[`${m.name}-serial.log`] = buf.subarray(Math.max(0, buf.length - SERIAL_TAIL_BYTES)).toString('utf8');
        } catch (err) {
          out[`${m.name}-serial.log`] = `not readable: ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
        }
      }
    }
    return out;
  }

  async function reboot(
    name: string,
    kind: RebootKind,
    { deadline, fault = {} }: { deadline: Deadline; fault?: FaultParams },
  ) {
    const m = machines[name];
    if (!m)
      throw new HarnessError(
        `reboot: no machine named ${JSON.stringify(name)} (have ${Object.keys(machines).join(', ')})`,
      );
    const idOfName = (vm: string, what: string) => {
      const id = ids[vm] ?? (spec.provider === 'libvirt' ? libvirtDomainNames(vagrantDir, vm)[0] : undefined);
      if (!id)
        throw new HarnessError(
          `${what} of ${vm}: no ${spec.provider} id in ${path.join(vagrantDir, '.vagrant', 'machines', vm)}`,
        );
      return id;
    };
    const idOf = (what: string) => idOfName(m.name, what);
    const hv = () => ({ deadline: deadlineIn(60_000, deadline), run, logger });
    const target: FaultTarget = {
      machine: m,
      ...(logger ? { logger } : {}),
      serverAddresses: async () => spec.machines.filter((x) => x.role === 'server').map((x) => x.privateIp),
      peerAddresses: async () => spec.machines.filter((x) => x.name !== m.name).map((x) => x.privateIp),
      // every machine with its own power controls and not-back error (power-loss-all)
      everyMachine: () =>
        spec.machines.flatMap((ms) => {
          const each = machines[slotOf(ms)];
          if (!each) return [];
          return [
            {
              role: ms.role === 'server' ? ('server' as const) : ('client' as const),
              machine: each,
              powerOff: () => power(spec.provider, idOfName(ms.name, 'power off'), 'off', hv()),
              powerOn: () => power(spec.provider, idOfName(ms.name, 'power on'), 'on', hv()),
              notBack: async (err: TimeoutError) =>
                notBackError(err, {
                  machine: ms.name,
                  kind: 'power-loss-all',
                  console: await serialConsole(ms.name),
                }),
            },
          ];
        }),
      rebootOptions: (k, o) => ({
        deadline: o.deadline,
        ...(logger ? { logger } : {}),
        hardReset: async () => hardReset(spec.provider, idOf('hard reset'), hv()),
        powerOff: async () => power(spec.provider, idOf('power off'), 'off', hv()),
        powerOn: async () => power(spec.provider, idOf('power on'), 'on', hv()),
        ...(o.fault.offForMs !== undefined ? { offForMs: o.fault.offForMs } : {}),
        // a machine that never comes back is named with the last SSH error and its serial console's tail
        notBack: async (err) => notBackError(err, { machine: m.name, kind: k, console: await serialConsole(m.name) }),
      }),
    };
    return perform(VAGRANT_PERFORMERS, spec.provider, kind, target, { deadline, fault });
  }

  function registerTeardown(): void {
    const destroyLater = () => destroy({ deadline: deadlineIn(CLEANUP_DESTROY_MS) });
    if (o.teardown) o.cleanup(o.teardown.what, () => o.teardown!.fn(destroyLater), { keptAs: describe });
    else o.cleanup(`vagrant destroy -f (run ${spec.runId}, ${vagrantDir})`, destroyLater, { keptAs: describe });
  }

  /** SSH machines from the ssh-config text of every machine (as `vagrant ssh-config` printed it). */
  async function connectAll(text: (name: string) => Promise<string>, write: boolean): Promise<Lab> {
    const configs: string[] = [];
    for (const ms of spec.machines) {
      const one = await text(ms.name);
      configs.push(one.trimEnd());
      const target = sshTargetFor(one, ms.name);
      machines[slotOf(ms)] = new SshMachine({ ...o.ssh, role: ms.role, name: ms.name, target, logger });
      const id = await readMachineId(vagrantDir, ms.name, spec.provider);
      if (id) ids[ms.name] = id;
    }
    if (write) await fs.writeFile(path.join(vagrantDir, 'ssh-config'), configs.join('\n\n') + '\n');
    connected = true;
    return { id: spec.runId, machines, reboot, collectEvidence, describe, destroy };
  }

  /** The tail of a machine's serial console log (libvirt), or why there is none. */
  async function serialConsole(name: string): Promise<ConsoleSource> {
    if (spec.provider !== 'libvirt') return { none: `the ${spec.provider} provider keeps no serial log` };
    const file = serialLogPath(spec, name);
    try {
      const buf = await fs.readFile(file);
      return { path: file, text: buf.subarray(Math.max(0, buf.length - 64 * 1024)).toString('utf8') };
    } catch (err) {
      return { none: `not readable: ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
    }
  }

  return {
    collectEvidence,
    /** Write the spec and Vagrantfile, register destroy, `vagrant up`, then connect SSH details for every machine. */
    async up({ deadline }) {
      await fs.mkdir(vagrantDir, { recursive: true });
      await fs.writeFile(specPath, JSON.stringify(spec, null, 2) + '\n');
      await fs.copyFile(o.vagrantfile, path.join(vagrantDir, 'Vagrantfile'));
      registerTeardown();
      upTranscript = [];
      const upStart = performance.now();
      // Note: one line per machine and milestone, so minutes of bring-up are not minutes of silence.
      const slotNamed = new Map(spec.machines.map((m) => [m.name, slotOf(m)]));
      await vagrant.up(names, {
        provider: spec.provider,
        deadline,
        onOutput: (line) => upTranscript!.push(line),
        onProgress: ({ machine, milestone }) => {
          const s = Math.round((performance.now() - upStart) / 1000);
          const who = slotNamed.get(machine) ?? machine;
          logger?.({ kind: 'info', t: 0, message: `  ${who}: ${MILESTONE_TEXT[milestone]} (${s} s)` });
        },
      });
      const texts = await vagrant.sshConfigTexts(names, { deadline });
      return connectAll(async (name) => texts[name]!, true);
    },
    /** Register the teardown, then SSH details from the ssh-config `up()` wrote (no Vagrant call: it costs seconds). */
    async attach() {
      registerTeardown();
      upTranscript = ['(a warm lab reverted from its snapshot: this run did not run vagrant up)'];
      const text = await fs.readFile(path.join(vagrantDir, 'ssh-config'), 'utf8');
      return connectAll(async () => text, false);
    },
  };
}

/** The serial logs a lab's machines leave on the host (libvirt writes one per VM; VirtualBox none). */
export function serialLogFiles(spec: LabSpec): string[] {
  return spec.provider === 'libvirt' ? spec.machines.map((m) => serialLogPath(spec, m.name)) : [];
}

/** Leave the reason a lab's teardown failed in its directory (list-labs: "left", not "kept"); best effort. */
export async function markTeardownFailed(dir: string, err: unknown): Promise<void> {
  const why = err instanceof Error ? err.message : String(err);
  await fs.writeFile(path.join(dir, TEARDOWN_FAILED_FILE), `${why}\n`).catch(() => {});
}
