// In-place upgrade of one Nomad agent over SSH: swap the binary and restart the agent WITHOUT draining, the way
// operators upgraded clients into the GH-25093 IP collision (nomad-reference §4.4, §4.5).
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { HarnessError } from '../errors.js';
import { quote } from '../shell/quote.js';
import { checkNomadBinary } from '../builds/binary.js';
import { REMOTE } from './provision.js';

/** The remote commands of an upgrade, in order (pure, for tests): install the uploaded build over the old one, then restart. */
export function upgradeCommands(): { what: string; cmd: string }[] {
  return [
    // Note: install unlinks the target first, so replacing the binary of a running agent does not hit ETXTBSY.
    { what: 'installing the new nomad binary', cmd: `install -m 0755 ${REMOTE.upload} ${REMOTE.binary}` },
    { what: 'removing the uploaded binary', cmd: `rm -f ${REMOTE.upload}` },
    { what: 'nomad version', cmd: `${REMOTE.binary} version` },
    // no drain, no stop of the allocs: only the agent restarts; exec tasks keep running under their executors
    {
      what: 'restarting the nomad agent',
      cmd: `sh -c ${quote('systemctl restart nomad.service && systemctl is-active nomad.service')}`,
    },
  ];
}

/** Upload `binaryPath`, put it in place of the agent's binary and restart the agent (no drain); returns the new `nomad version`. */
export async function upgradeNomad(
  machine: Machine,
  binaryPath: string,
  deadline: Deadline,
): Promise<{ version: string }> {
  await checkNomadBinary(binaryPath, 'upgrade_to', { probe: false });
  await machine.upload(binaryPath, REMOTE.upload, { deadline, mode: 0o755 });
  let version = '';
  for (const { what, cmd } of upgradeCommands()) {
    const r = await machine.exec(cmd, { deadline, sudo: true });
    if (r.code !== 0)
      throw new HarnessError(
        `${machine.name}: ${what} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`,
      );
    if (what === 'nomad version') version = r.stdout.trim();
  }
  return { version };
}
