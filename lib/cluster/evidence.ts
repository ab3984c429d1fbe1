// Collect a machine's host-side evidence after a run: Nomad journal (both boots), network state, CNI state.
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { quote } from '../shell/quote.js';
import { HarnessError } from '../errors.js';
import { cniListingCommand, parseCniListing, renderCniListing } from './parse-cni-listing.js';
import { CNI_STATE_DIRS } from '../checks/cni-state.js';
import { CNI_DIR, cniProbeCommand } from './cni-plugins.js';
import { parseHostFacts, type HostFacts } from '../parse/host-facts.js';

/** Evidence file name -> remote command (run with sudo). Pure, so the list is testable. */
export function evidenceCommands(): Record<string, string> {
  const dirs = CNI_STATE_DIRS.map(quote).join(' ');
  return {
    'journal-nomad-previous-boot.txt': 'journalctl -u nomad.service -b -1 --no-pager -o short-iso-precise',
    'journal-nomad-current-boot.txt': 'journalctl -u nomad.service -b 0 --no-pager -o short-iso-precise',
    'boots.txt': 'journalctl --list-boots --no-pager',
    'ip-addr.txt': 'ip addr',
    'ip-route.txt': 'ip route',
    'iptables-save.txt': 'iptables-save',
    'netns.txt': `sh -c ${quote('ip netns list; echo; ls -la /var/run/netns 2>&1')}`,
    'cni-state-ls.txt': `sh -c ${quote('for d in "$@"; do echo "== $d"; ls -la "$d" 2>&1; done')} sh ${dirs}`,
  };
}

/** Run each evidence command on the machine; failures are recorded in the text, never thrown (evidence is best effort). */
export async function collectHostEvidence(
  machine: Machine,
  opts: { deadline: Deadline },
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const show = (cmd: string, r: { code: number; stdout: string; stderr: string }) =>
    `$ ${cmd}\n${r.stdout}${r.stderr ? `${r.stdout.endsWith('\n') || !r.stdout ? '' : '\n'}[stderr]\n${r.stderr}` : ''}${r.code !== 0 ? `\n[exit ${r.code}]\n` : ''}`;
  for (const [file, cmd] of Object.entries(evidenceCommands())) {
    try {
      out[file] = show(cmd, await machine.exec(cmd, { deadline: opts.deadline, sudo: true }));
    } catch (err) {
      out[file] = `$ ${cmd}\n[not collected: ${err instanceof Error ? err.message : String(err)}]\n`;
    }
  }
  const cmd = cniListingCommand();
  try {
    const r = await machine.exec(cmd, { deadline: opts.deadline, sudo: true });
    out['cni-state.txt'] = r.code === 0 ? renderCniListing(parseCniListing(r.stdout)) : show(cmd, r);
  } catch (err) {
    out['cni-state.txt'] = `[not collected: ${err instanceof Error ? err.message : String(err)}]\n`;
  }
  return out;
}

/** Read the CNI host-local state dirs of a machine as data (for Observation.cniState). */
export async function readCniState(machine: Machine, opts: { deadline: Deadline; dirs?: readonly string[] }) {
  const r = await machine.exec(cniListingCommand(opts.dirs), { deadline: opts.deadline, sudo: true });
  if (r.code !== 0)
    throw new HarnessError(`${machine.name}: listing CNI state failed (exit ${r.code}): ${r.stderr.trim()}`);
  return parseCniListing(r.stdout);
}

/** The command whose output parseHostFacts reads: the kernel, then each CNI plugin's about line. Pure. */
export function hostFactsCommand(): string {
  return `echo "kernel $(uname -r)"\n${cniProbeCommand(CNI_DIR)}`;
}

/** The machine's kernel and CNI plugin releases (one round trip); throws when the machine does not answer. */
export async function readHostFacts(machine: Machine, opts: { deadline: Deadline }): Promise<HostFacts> {
  const r = await machine.exec(hostFactsCommand(), { deadline: opts.deadline });
  if (r.code !== 0) throw new HarnessError(`reading the kernel and CNI plugin versions exited ${r.code}: ${r.stderr}`);
  return parseHostFacts(r.stdout);
}
