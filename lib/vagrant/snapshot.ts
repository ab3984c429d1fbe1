// libvirt snapshots of a lab's running domains (warm reruns): internal snapshots with memory, taken
// and reverted with virsh (a unix socket: works from the lab's namespace like every other virsh call here).
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { HarnessError } from '../errors.js';
import type { Logger } from '../log/events.js';
import type { Deadline } from '../time/deadlines.js';
import { LIBVIRT_URI } from './hypervisor.js';

/** Deadline, logger and the command runner (tests inject a stand-in virsh). */
interface SnapshotOptions {
  deadline: Deadline;
  run?: RunCommand;
  logger?: Logger;
}

const virsh = (args: string[], o: SnapshotOptions, allowed?: readonly number[]) =>
  (o.run ?? runCommand)('virsh', ['-c', LIBVIRT_URI, ...args], {
    deadline: o.deadline,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(allowed ? { allowedCodes: allowed } : {}),
  });

/** How virsh says a domain or network does not exist (libvirt 9: "error: failed to get domain 'x'"). */
const NOT_FOUND = /failed to get (domain|network) '|(Domain|Network) not found/;

/**
 * A failed virsh lookup that says the object does not exist; anything else (libvirtd down, no permission, no virsh)
 * is not an answer, and a destroy that took it for "gone" would claim and delete what it never looked at.
 */
function notFound(r: { code: number; stderr: string }, what: string): undefined {
  if (NOT_FOUND.test(r.stderr) && !/failed to connect/i.test(r.stderr)) return undefined;
  const said = r.stderr.trim().split('\n').slice(-2).join(' ') || '(no output)';
  throw new HarnessError(`virsh could not tell whether ${what} exists (exit ${r.code}): ${said}`, {
    hint: "check that libvirtd runs and answers (`virsh -c qemu:///system list --all`, inside the lab's netns when it has one)",
  });
}

/** The domain's state ("running", "shut off", "paused"), or undefined when no such domain exists. */
async function domainState(domain: string, o: SnapshotOptions): Promise<string | undefined> {
  const r = await virsh(['domstate', domain], o, ANY_EXIT_CODE);
  return r.code === 0 ? r.stdout.trim() : notFound(r, `domain ${domain}`);
}

/** The domain's snapshot names, or undefined when no such domain exists. */
export async function snapshotNames(domain: string, o: SnapshotOptions): Promise<string[] | undefined> {
  const r = await virsh(['snapshot-list', domain, '--name'], o, ANY_EXIT_CODE);
  if (r.code !== 0) return notFound(r, `domain ${domain}`);
  return r.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Snapshot running domains together: pause them all, take an internal snapshot with memory of each (`virsh
 * snapshot-create-as --atomic`), resume them all (also when a snapshot failed). Paused together, the machines'
 * states are taken at the same guest moment.
 */
export async function snapshotDomains(domains: readonly string[], name: string, o: SnapshotOptions): Promise<void> {
  const paused: string[] = [];
  try {
    for (const d of domains) {
      await virsh(['suspend', d], o);
      paused.push(d);
    }
    for (const d of domains) {
      await virsh(['snapshot-create-as', d, name, '--description', 'nomad-reboot-harness warm lab', '--atomic'], o);
    }
  } finally {
    for (const d of paused) await virsh(['resume', d], o, ANY_EXIT_CODE);
  }
}

/** Revert a domain to the snapshot and leave it running (from a shut-off or a running domain). */
export async function revertDomain(domain: string, name: string, o: SnapshotOptions): Promise<void> {
  const r = await virsh(['snapshot-revert', domain, name, '--running'], o, ANY_EXIT_CODE);
  if (r.code === 0) return;
  // Note: libvirt asks for --force when the revert is "risky" (e.g. the running domain's config differs); the
  // snapshot is the state wanted, so that is what --force is for.
  if (/--force/.test(r.stderr)) {
    await virsh(['snapshot-revert', domain, name, '--running', '--force'], o);
    return;
  }
  throw new HarnessError(`virsh snapshot-revert ${domain} ${name} failed (exit ${r.code}): ${r.stderr.trim()}`);
}

/** Power a domain off hard (`virsh destroy`; the domain stays defined); nothing when it is not running. */
export async function powerOffDomain(domain: string, o: SnapshotOptions): Promise<void> {
  const state = await domainState(domain, o);
  if (state === undefined || state === 'shut off') return;
  await virsh(['destroy', domain], o);
}

/** Delete every snapshot of a domain (libvirt refuses to undefine a domain that has some). */
export async function deleteSnapshots(domain: string, o: SnapshotOptions): Promise<void> {
  for (const s of (await snapshotNames(domain, o)) ?? []) await virsh(['snapshot-delete', domain, s], o);
}

/** Remove a domain and its storage by hand (what `vagrant destroy` should have done). */
export async function undefineDomain(domain: string, o: SnapshotOptions): Promise<void> {
  if ((await domainState(domain, o)) === undefined) return;
  await powerOffDomain(domain, o);
  await deleteSnapshots(domain, o);
  await virsh(['undefine', domain, '--remove-all-storage'], o);
}

/** Whether a libvirt network is defined and active: 'active', 'inactive', or 'missing'. */
export async function networkState(name: string, o: SnapshotOptions): Promise<'active' | 'inactive' | 'missing'> {
  const r = await virsh(['net-info', name], o, ANY_EXIT_CODE);
  if (r.code !== 0) return (notFound(r, `network ${name}`), 'missing');
  return /^Active:\s*yes/m.test(r.stdout) ? 'active' : 'inactive';
}

/** Start a defined network that is not running (a restarted libvirtd leaves vagrant-libvirt's networks inactive). */
export async function startNetwork(name: string, o: SnapshotOptions): Promise<void> {
  if ((await networkState(name, o)) === 'inactive') await virsh(['net-start', name], o);
}

/** Every defined domain's name (`virsh list --all --name`). */
export async function listDomains(o: SnapshotOptions): Promise<string[]> {
  const r = await virsh(['list', '--all', '--name'], o);
  return r.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A domain's description (vagrant-libvirt writes `Source: <dir>/Vagrantfile`), or undefined when it has none. */
export async function domainDescription(domain: string, o: SnapshotOptions): Promise<string | undefined> {
  const r = await virsh(['desc', domain], o, ANY_EXIT_CODE);
  if (r.code !== 0) return notFound(r, `domain ${domain}`);
  const text = r.stdout.trim();
  return text && !/^No description for domain/.test(text) ? text : undefined;
}
