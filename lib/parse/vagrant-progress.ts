// Where each machine is in `vagrant up`, read from Vagrant's output as it streams: the machine-readable records
// (`<ts>,<machine>,ui,info,==> <machine>: Starting domain.`, `<ts>,<machine>,action,up,end`) or the plain
// `==> <machine>: …` lines. The messages are Vagrant 2.3.4's and vagrant-libvirt 0.11.2's (their locales/en.yml).
// Pure.
import { parseMachineReadable } from './vagrant-machine-readable.js';

/** The moments of one machine's bring-up a person waits for, in the order they come. */
type UpMilestone = 'creating' | 'booting' | 'address' | 'ssh-ready' | 'up';

/** What a person reads for each milestone. */
export const MILESTONE_TEXT: Record<UpMilestone, string> = {
  creating: 'creating its domain',
  booting: 'booting',
  address: 'booting: waiting for an address',
  'ssh-ready': 'booted, SSH ready',
  up: 'up',
};

/** Message text (after `==> <machine>: `) -> milestone. */
const MESSAGES: readonly [RegExp, UpMilestone][] = [
  // vagrant-libvirt: create_domain (the box volume's snapshot comes first, the domain's settings after)
  [/^Creating image \(snapshot of base box volume\)\./, 'creating'],
  [/^Creating domain with the following settings/, 'creating'],
  [/^Starting domain\./, 'booting'],
  [/^Waiting for domain to get an IP address/, 'address'],
  // Vagrant: WaitForCommunicator
  [/^Machine booted and ready!/, 'ssh-ready'],
];

export interface UpProgress {
  machine: string;
  milestone: UpMilestone;
}

/** The milestone one output line marks, or undefined. */
export function upProgress(line: string): UpProgress | undefined {
  const rec = parseMachineReadable(line)[0];
  if (rec) {
    if (rec.type === 'action' && rec.data[0] === 'up' && rec.data[1] === 'end' && rec.target)
      return { machine: rec.target, milestone: 'up' };
    if (rec.type !== 'ui') return undefined;
    return fromMessage(rec.data.slice(1).join(','), rec.target);
  }
  return fromMessage(line.trim(), '');
}

function fromMessage(text: string, target: string): UpProgress | undefined {
  const m = /^==> ([^:\s]+): (.*)$/s.exec(text);
  const machine = m?.[1] ?? target;
  const body = m?.[2] ?? text;
  if (!machine) return undefined;
  for (const [re, milestone] of MESSAGES) if (re.test(body)) return { machine, milestone };
  return undefined;
}

/**
 * Each machine's milestones once and in order: a message repeated (vagrant-libvirt prints the domain's settings
 * under "Creating domain…") or one that comes after a later milestone is dropped. Returns a function that answers
 * the milestone to report for a line, or undefined.
 */
export function upProgressTracker(): (line: string) => UpProgress | undefined {
  const order: readonly UpMilestone[] = ['creating', 'booting', 'address', 'ssh-ready', 'up'];
  const reached = new Map<string, number>();
  return (line) => {
    const p = upProgress(line);
    if (!p) return undefined;
    const at = order.indexOf(p.milestone);
    if (at <= (reached.get(p.machine) ?? -1)) return undefined;
    reached.set(p.machine, at);
    return p;
  };
}
