// `reboot-harness login <run-id> [machine] [--command <cmd>]`: an SSH session on one machine of a kept lab (like
// `vagrant ssh`), from inside the lab's network namespace with the ssh-config the run wrote; for lab.provider ssh, on
// one of the config's hosts with its key. The lab is found the way `destroy` and `list-labs` find it.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, HarnessError, type ConfigProblem } from '../errors.js';
import { DEFAULTS, type HarnessConfig } from '../config/schema.js';
import { runAttached } from '../exec/attached.js';
import { currentNetns, IN_NETNS_ENV } from '../lab/host/host.js';
import { providerFor } from '../lab/providers.js';
import { expandHome, sshHosts } from '../lab/ssh/ssh-lab.js';
import { LAB_SPEC_FILE, slotOf, type LabSpec, type MachineSpec } from '../model/lab-spec.js';
import { commandLine, labCommand, labWords, type LabPlace } from '../shell/command-line.js';
import { findLabs, type LabEntry } from './labs.js';
import type { ParsedArgs } from './command.js';
import type { CliDeps } from './deps.js';

/** The file the run wrote beside its lab spec: one Host block per machine (lib/lab/vagrant/vagrant-lab.ts). */
const SSH_CONFIG = 'ssh-config';

/** What `login` runs: a program and its argv. */
interface LoginCommand {
  file: string;
  args: string[];
  /** which machine, for the line printed before */
  machine: string;
}

/** A machine picked by slot (client, client-2, server) or its full name; the first client when none is named. Pure. */
export function pickMachine<M extends { name: string; role: string; slot: string }>(
  machines: readonly M[],
  wanted: string | undefined,
): { ok: M } | { problem: ConfigProblem } {
  const m =
    wanted === undefined
      ? (machines.find((x) => x.role === 'client') ?? machines[0])
      : machines.find((x) => x.slot === wanted || x.name === wanted);
  if (m) return { ok: m };
  return {
    problem: {
      field: 'machine',
      value: wanted,
      message: wanted === undefined ? 'the lab has no machines' : 'is not a machine of the lab',
      // a lab of no machines has nothing to give (a spec edited by hand): "give one of: " named nothing (Q563)
      fix: machines.length
        ? `give one of: ${machines.map((x) => x.slot).join(', ')}`
        : 'none: there is nothing to log into; destroy the lab',
    },
  };
}

/** `ssh` words for an interactive shell (a terminal asked for) or one command (none: its output stays plain). Pure. */
function sshTail(command: string | undefined, host: string[]): string[] {
  return command === undefined ? ['-t', ...host] : [...host, '--', command];
}

/** The command that reaches a machine of a Vagrant lab, inside `netns` unless this process already is. Pure. */
export function vagrantLoginCommand(o: {
  dir: string;
  machine: Pick<MachineSpec, 'name'>;
  command: string | undefined;
  netns: string | undefined;
}): { file: string; args: string[] } {
  const ssh = ['ssh', '-F', join(o.dir, SSH_CONFIG), ...sshTail(o.command, [o.machine.name])];
  return o.netns ? { file: 'ip', args: ['netns', 'exec', o.netns, ...ssh] } : { file: ssh[0]!, args: ssh.slice(1) };
}

/** The command that reaches an existing host (lab.provider ssh) with its user, port, key and jump host. Pure. */
export function hostLoginCommand(o: {
  spec: {
    address: string | undefined;
    user: string | undefined;
    key: string | undefined;
    port: number;
    jump: string | undefined;
  };
  command: string | undefined;
  netns: string | undefined;
}): { file: string; args: string[] } {
  const s = o.spec;
  // Note: host keys are not checked, as the harness's own SSH client does not check them on these hosts either.
  const opts = [
    ...['StrictHostKeyChecking=no', 'UserKnownHostsFile=/dev/null', 'LogLevel=ERROR'].flatMap((x) => ['-o', x]),
    ...(s.key ? ['-i', expandHome(s.key), '-o', 'IdentitiesOnly=yes'] : []),
    '-p',
    String(s.port),
    ...(s.jump ? ['-J', s.jump] : []),
  ];
  const target = `${s.user ? `${s.user}@` : ''}${s.address ?? ''}`;
  const ssh = ['ssh', ...opts, ...sshTail(o.command, [target])];
  return o.netns ? { file: 'ip', args: ['netns', 'exec', o.netns, ...ssh] } : { file: ssh[0]!, args: ssh.slice(1) };
}

/** The namespace to enter: the lab's, unless this process runs in it already (or was re-run into it). */
function netnsToEnter(ns: string, env: Record<string, string | undefined>): string | undefined {
  if (!ns || env[IN_NETNS_ENV] === ns || currentNetns() === ns) return undefined;
  return ns;
}

/** `reboot-harness list-labs`, of the work dir (and netns) `place` when it is not the default (Q528, Q561, Q600). */
const listLabs = (place: string | LabPlace) => commandLine(['reboot-harness', 'list-labs', ...labWords(place)]);

/** A run id that names no kept lab: exit 2, naming the id and the labs that can be logged into. */
function notKept(labs: readonly LabEntry[], place: LabPlace, why: string): HarnessError {
  const { workDir } = place;
  const kept = labs.filter((l) => l.kind === 'kept').map((l) => l.id);
  return new HarnessError(`login: ${why}`, {
    exitCode: 2,
    hint: kept.length
      ? `kept labs under ${workDir}: ${kept.join(', ')} (${listLabs(place)})`
      : `no kept labs under ${workDir}: run with --keep (or --keep on-failure) to keep one`,
  });
}

/** The problems of login's own words (the run id, words too many, an empty --command): told with the config's. */
export function loginLineProblems(args: ParsedArgs, place: string | LabPlace = DEFAULTS.lab.workDir): ConfigProblem[] {
  const [id, , ...extra] = args.positionals;
  const command = typeof args.values['command'] === 'string' ? (args.values['command'] as string) : undefined;
  const problems: ConfigProblem[] = [];
  if (id === undefined)
    problems.push({
      field: 'run id',
      value: undefined,
      message: 'is required',
      fix: `give the id of a kept lab (the "kept" line of a run --keep, or ${listLabs(place)})`,
    });
  if (extra.length)
    problems.push({
      field: 'arguments',
      value: extra,
      message: 'are more than <run-id> [machine]',
      fix: "give a command to run with --command '<cmd>' (quoted as one word)",
    });
  if (command !== undefined && !command.trim())
    problems.push({
      field: '--command',
      value: command,
      message: 'is empty',
      fix: 'give a command, or leave --command out for a shell',
    });
  return problems;
}

/** Work out what `login` runs; every usage problem is thrown before anything is started. */
async function loginCommandFor(args: ParsedArgs, config: HarnessConfig, env: CliDeps['env']): Promise<LoginCommand> {
  const [id, wanted] = args.positionals;
  const command = typeof args.values['command'] === 'string' ? (args.values['command'] as string) : undefined;
  const problems = loginLineProblems(args, config.lab);
  if (problems.length) throw new ConfigError(problems);
  if (providerFor(config).host.machinesFromConfig) {
    // Note: existing hosts outlive every run (teardown only cleans what the harness installed), so any run id of them
    // names the same machines: the config's hosts.
    const hosts = sshHosts(config.lab.hosts, ['server', 'client']).map((h) => ({ ...h, slot: h.name }));
    const picked = pickMachine(hosts, wanted);
    if ('problem' in picked) throw new ConfigError([picked.problem]);
    const m = picked.ok;
    if (!m.spec.address)
      throw new ConfigError([
        { field: m.field, value: undefined, message: 'has no address', fix: 'give the host address in harness.yaml' },
      ]);
    return {
      ...hostLoginCommand({ spec: m.spec, command, netns: netnsToEnter(config.lab.hostsNetns, env) }),
      machine: `${m.name} (${m.spec.address})`,
    };
  }
  const { labs, problems: unreadable } = await findLabs(config, { orphans: false });
  const lab = labs.find((l) => l.id === id);
  // Note: a lab whose folder is there but whose spec cannot be read is that, not a lab that does not exist
  const unread = unreadable.find((p) => p.startsWith(`lab ${id} (`));
  if (!lab && unread)
    throw new HarnessError(`login: ${unread}`, {
      exitCode: 2,
      // Note: the work dir named, as in every lab hint: without it list-labs looks in the default one (Q561)
      hint: `its machines and addresses are in that file: without it there is nothing to log into (${listLabs(config.lab)} names the lab; ${labCommand('destroy', id!, config.lab)} removes it)`,
    });
  if (!lab) throw notKept(labs, config.lab, `no lab for run id ${id} under ${config.lab.workDir}`);
  if (lab.kind === 'warm')
    throw notKept(
      labs,
      config.lab,
      `${id} is a warm lab, parked with its domains shut off between runs (not a lab kept by --keep)`,
    );
  if (!existsSync(join(lab.dir, SSH_CONFIG)))
    // the lab is kept (list-labs says so): what it lacks is a finished bring-up, not a --keep
    throw new HarnessError(`login: lab ${id} has no ${SSH_CONFIG}: its bring-up never finished`, {
      exitCode: 2,
      // Note: the id quoted (a folder's name, which anyone who may write in the work dir chooses: "a;cmd" pasted
      // ran cmd), with the work dir it was found in (destroy without it looks in the default one) (Q424)
      hint: `its machines may be half made: ${labCommand('destroy', id!, config.lab)} removes them; run again with --keep for a lab to log into`,
    });
  const spec = JSON.parse(await readFile(join(lab.dir, LAB_SPEC_FILE), 'utf8')) as LabSpec;
  const picked = pickMachine(
    spec.machines.map((m) => ({ ...m, slot: slotOf(m) })),
    wanted,
  );
  if ('problem' in picked) throw new ConfigError([picked.problem]);
  return {
    ...vagrantLoginCommand({ dir: lab.dir, machine: picked.ok, command, netns: netnsToEnter(config.lab.netns, env) }),
    machine: `${picked.ok.slot} (${picked.ok.name}) of lab ${id}`,
  };
}

/** `login`: run ssh with the terminal attached; its exit code is the command's. */
export async function loginCommand(args: ParsedArgs, config: HarnessConfig, deps: CliDeps): Promise<number> {
  const c = await loginCommandFor(args, config, deps.env);
  if (!config.output.quiet) deps.err(`login: ${c.machine}: ${commandLine([c.file, ...c.args])}\n`);
  return runAttached(c.file, c.args, {
    cannotStart: (err) =>
      new HarnessError(`login: cannot run ${c.file}: ${err.message}`, {
        hint: 'needs OpenSSH (ssh) and, for a lab namespace, iproute2 and root',
      }),
  });
}
