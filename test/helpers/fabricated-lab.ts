// Lab folders made by hand for the CLI passes' tests of destroy, login and list-labs, and the shell a printed line is
// pasted into: nothing here starts a VM.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A lab spec (lab.json) of one client machine, or of `machines` as given (a hand-edited spec). virtualbox: destroy
 * asks no virsh and takes no lock the VM lab holds.
 */
export const labSpecJson = (
  runId: string,
  machines: unknown = [{ name: `${runId}-client`, role: 'client', privateIp: '10.199.0.11' }],
) =>
  JSON.stringify({
    runId,
    box: 'b',
    provider: 'virtualbox',
    cpus: 1,
    memoryMb: 768,
    bootTimeoutS: 60,
    machines,
    privateNetwork: { name: 'p', subnet: '10.199.0.0/24' },
  });

/** A folder with a recording `reboot-harness` first on PATH: a line pasted into `bash -c` gives its argv. */
export function paster(dir: string): (line: string) => string[] {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'bin', 'reboot-harness'), '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
  return (line) =>
    spawnSync('bash', ['-c', line], {
      cwd: dir,
      env: { PATH: `${join(dir, 'bin')}:${process.env['PATH']}` },
      encoding: 'utf8',
    })
      .stdout.split('\n')
      .slice(0, -1);
}
