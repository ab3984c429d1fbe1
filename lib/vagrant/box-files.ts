// Where an added box keeps its files: $VAGRANT_HOME/boxes/<name, "/" as -VAGRANTSLASH->/<version>/<provider>/.
// The harness's boxes ship their kernel and initrd there (vms/build-box.ts); the KVM probe boots those.
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { compareDotted } from '../parse/versions.js';

/** Directory Vagrant keeps its boxes in (VAGRANT_HOME honoured). */
export function vagrantBoxesDir(env: Record<string, string | undefined> = process.env): string {
  return join(env['VAGRANT_HOME'] || join(homedir(), '.vagrant.d'), 'boxes');
}

export type BoxKernel = { kernel: string; initrd: string; version: string } | { missing: string };

/** The kernel and initrd of the newest added version of `box` for `provider`, or what is missing. */
export async function boxKernel(
  box: string,
  provider: string,
  env?: Record<string, string | undefined>,
): Promise<BoxKernel> {
  const boxDir = join(vagrantBoxesDir(env), box.replaceAll('/', '-VAGRANTSLASH-'));
  const versions = (await readdir(boxDir).catch(() => [] as string[])).filter((v) => /^\d+(\.\d+)*$/.test(v));
  if (!versions.length) return { missing: `box ${box} is not added (no ${boxDir})` };
  const version = versions.sort(compareDotted).at(-1)!;
  const dir = join(boxDir, version, provider);
  const [kernel, initrd] = [join(dir, 'vmlinuz'), join(dir, 'initrd.img')];
  const have = await Promise.all(
    [kernel, initrd].map((p) =>
      stat(p).then(
        (s) => s.isFile(),
        () => false,
      ),
    ),
  );
  if (!have.every(Boolean)) {
    return { missing: `box ${box} ${version} ships no vmlinuz + initrd.img in ${dir} (no direct kernel boot)` };
  }
  return { kernel, initrd, version };
}
