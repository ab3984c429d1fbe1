// `reboot-harness destroy <run-id>... | --all | --warm | --stale | --older-than <d>`: labs left behind, and warm labs.
import { durationSeconds, goDuration } from '../../config/durations.js';
import type { ConfigProblem } from '../../errors.js';
import { unavailable, type CliCommand, type ParsedArgs } from '../command.js';
import type { DestroySweep } from '../destroy.js';
import { commandConfig } from '../input.js';
import { loggerFor } from '../logger.js';
import { CONFIG } from './options.js';

export const destroy: CliCommand = {
  name: 'destroy',
  summary:
    'destroy labs left by --keep or a killed run (by run id, or --all), and warm labs (--warm, --stale, --older-than)',
  usage: [
    'reboot-harness destroy <run-id>... | --all [--host] | --warm | --stale | --older-than <duration>',
    '',
    'Destroys the VMs and Vagrant directory of the given runs under the work dir (--work-dir), or the warm labs',
    'kept there (--warm: all, --stale: those that can never be used again), or labs older than --older-than.',
    "Every sweep (--all, --warm, --stale, --older-than) also removes orphan domains: a lab's VMs whose directory was",
    "deleted (vagrant-libvirt names that directory in each domain's description).",
  ],
  exits:
    '0 destroyed (or nothing to destroy); 2 usage error; 3 a destroy failed, or a lab or the orphan domains could not be looked at (kept); 70 harness bug',
  options: [
    CONFIG,
    { name: 'all', type: 'boolean', doc: 'every lab, warm labs included, and orphan domains' },
    { name: 'warm', type: 'boolean', doc: 'every warm lab (kept snapshots of prepared labs)' },
    {
      name: 'stale',
      type: 'boolean',
      doc: 'warm labs whose build or box changed or is gone, or whose domains or snapshot are gone',
    },
    {
      name: 'older-than',
      type: 'string',
      arg: '<duration>',
      doc: 'labs and warm labs older than this (Go duration: 90m, 24h)',
    },
    {
      name: 'host',
      type: 'boolean',
      doc: "also stop the libvirtd/virtlogd and network namespace the harness started, and put back /dev/kvm's mode if it changed it (refused while a VM still runs under that libvirtd)",
    },
  ],
  configFlags: [
    'netns',
    'work-dir',
    'provider',
    { flag: 'verbose', doc: 'also print every command run (vagrant, virsh) with its exit code' },
    { flag: 'quiet', doc: 'print only warnings and errors, not each lab destroyed' },
  ],
  // Note: the clean-up and lab commands read the lab's keys only: a stale HARNESS_TIMEOUT or HARNESS_REPEAT of run's
  // must not keep them from finding or destroying a lab
  reads: ['lab.', 'output.', 'nomad.token'],
  positionals: { what: 'run id', complete: 'labs' },
  async run(args, deps) {
    let sweep: DestroySweep = {};
    const config = await commandConfig(args, deps, () => {
      const read = readSweep(args.values);
      sweep = read.sweep;
      return [...selectorProblems(args), ...read.problems, ...nothingNamed(args, sweep)];
    });
    if (!deps.destroy) return unavailable('destroy');
    const all = Boolean(args.values['all']);
    const host = Boolean(args.values['host']);
    return await deps.destroy(config, args.positionals, all, loggerFor(config, deps), host, sweep);
  },
};

/**
 * Selectors that contradict each other: --all is every lab, so naming some besides (run ids, --warm, --stale,
 * --older-than) says two things at once; --warm is every warm lab, of which --stale picks some.
 */
function selectorProblems(args: ParsedArgs): ConfigProblem[] {
  const v = args.values;
  const out: ConfigProblem[] = [];
  const others = [
    ...(args.positionals.length ? [`run id ${args.positionals.join(' ')}`] : []),
    ...(['warm', 'stale', 'older-than'] as const)
      .filter((f) => v[f] !== undefined && v[f] !== false)
      .map((f) => `--${f}`),
  ];
  if (v['all'] && others.length)
    out.push({
      field: '--all',
      value: others,
      message: `destroys every lab, so ${others.join(', ')} besides it contradicts it`,
      fix: 'give --all alone (every lab, warm ones included), or drop it and keep the narrower selection',
    });
  if (v['warm'] && v['stale'] && !v['all'])
    out.push({
      field: '--warm/--stale',
      value: 'both',
      message: 'contradict each other: --warm destroys every warm lab, --stale only those that can never be used again',
      fix: 'give one of --warm and --stale',
    });
  return out;
}

/** --warm, --stale and --older-than; a bad duration is a problem naming the flag. */
function readSweep(values: Record<string, unknown>): { sweep: DestroySweep; problems: ConfigProblem[] } {
  const raw = values['older-than'];
  let olderThanS: number | undefined;
  if (raw !== undefined) {
    const p = goDuration(raw);
    if (!p.ok) return { sweep: {}, problems: [{ field: '--older-than', value: raw, message: p.message, fix: p.fix }] };
    olderThanS = durationSeconds(String(raw));
  }
  const sweep = {
    ...(values['warm'] ? { warm: true } : {}),
    ...(values['stale'] ? { stale: true } : {}),
    ...(olderThanS !== undefined ? { olderThanS } : {}),
  };
  return { sweep, problems: [] };
}

/** Nothing to destroy named at all (a bad --older-than names itself instead). */
function nothingNamed(args: ParsedArgs, sweep: DestroySweep): ConfigProblem[] {
  const v = args.values;
  if (v['all'] || v['host'] || args.positionals.length || v['older-than'] !== undefined) return [];
  if (sweep.warm || sweep.stale) return [];
  return [
    {
      field: 'run id',
      value: undefined,
      message: 'is required',
      fix: 'give one or more run ids (see the "kept" line of a run, or ls the work dir), --all, --warm, --stale, --older-than <duration>, or --host',
    },
  ];
}
