// Install what the VM lab needs on a Debian/Ubuntu host (root), then build the box: `sudo npx tsx vms/setup-host.ts`.
// Idempotent: packages already installed are skipped, and the box build is skipped when the box with the current
// recipe hash is already added (vms/build-box.ts). Used by `reboot-harness setup` and by .ci/run. Starting libvirtd
// inside the lab network namespace is not done here: the harness does it (lib/lab/host/host.ts ensureLabHost).
import { $, fs, which } from 'zx';
import { performance } from 'node:perf_hooks';
import { formatMs } from '../lib/errors.js';
import { isMain, parseFlags, probe, refuse, runScript, type Problem, type Script } from '../tools/steps.js';
import { boxConfig, buildBox, recipeHash, RECIPE_FILES } from './build-box.js';
import { goProblem } from './build-cni-plugins.js';

const USAGE = `Usage: setup-host.ts [--no-box] [--force-box] [--docker-box]
  --no-box      packages only, no box (then Go is not needed)
  --force-box   rebuild the box even when the added one has the current recipe
  --docker-box  also build the Docker box (vms/build-box.ts --docker) for \`--driver docker\`
Exit codes: 0 done, 1 a step failed, 2 bad arguments or a missing prerequisite (nothing was changed).`;

/**
 * Host packages, without Recommends. qemu + libvirt + vagrant-libvirt run the VMs; debootstrap/qemu-utils/e2fsprogs
 * build the box offline; dnsmasq-base serves DHCP on libvirt's management network; iproute2 for the network
 * namespace; containernetworking-plugins for the host-local integration test; libxml2-utils for xmllint (report
 * tests); openssh-server for the SSH integration tests (a real sshd on 127.0.0.1); chromium renders the HTML report
 * in tests, with fonts-liberation for its text; busybox-static: the docker variant's image script is tested on the
 * host with the static busybox it copies; gpgv checks release signatures. The box build also needs Go >= 1.21
 * (vms/build-cni-plugins.ts); it is not a Debian bookworm package at that version.
 */
export const HOST_PACKAGES = [
  'qemu-system-x86',
  'qemu-utils',
  'libvirt-daemon-system',
  'libvirt-clients',
  'vagrant',
  'vagrant-libvirt',
  'debootstrap',
  'dnsmasq-base',
  'iptables',
  'iproute2',
  'openssh-client',
  'e2fsprogs',
  'kmod',
  'containernetworking-plugins',
  'libxml2-utils',
  'ca-certificates',
  'chromium',
  'openssh-server',
  'busybox-static',
  'fonts-liberation',
  'gpgv',
];

/** The wanted packages that `dpkg-query -W -f '${Package} ${Status}\n'` does not show as installed. Pure. */
export function missingPackages(wanted: readonly string[], dpkgOutput: string): string[] {
  const installed = new Set(
    dpkgOutput
      .split('\n')
      .filter((l) => l.endsWith(' install ok installed'))
      .map((l) => l.split(' ')[0]!.replace(/:[a-z0-9]+$/, '')),
  );
  return wanted.filter((p) => !installed.has(p));
}

/** Install the missing host packages (apt-get without Recommends) and check vagrant sees its libvirt plugin. */
async function hostPackages(s: Script): Promise<void> {
  const q = await probe`dpkg-query -W -f ${'${Package} ${Status}\n'} ${HOST_PACKAGES}`;
  const missing = missingPackages(HOST_PACKAGES, q.stdout);
  if (!missing.length) s.say(`all ${HOST_PACKAGES.length} packages present`);
  else {
    await s.step(
      `apt-get install ${missing.join(' ')} (without Recommends)`,
      async () => {
        const t0 = performance.now();
        await $`apt-get update -q`;
        // Without Recommends: they pull a host kernel, a mail server, NFS and libguestfs, none of which the lab uses.
        await $`apt-get install -y -q --no-install-recommends ${missing}`;
        s.say(`apt took ${formatMs(performance.now() - t0)}`);
      },
      { fix: 'check that apt can reach its mirror (apt-get update) and that no other apt runs (dpkg lock)' },
    );
  }
  const plugins = await probe`vagrant plugin list`;
  if (!/^vagrant-libvirt/m.test(plugins.stdout)) {
    refuse([
      {
        message: `vagrant does not see the vagrant-libvirt plugin (vagrant plugin list: ${plugins.stdout.trim()})`,
        fix: 'apt-get install --reinstall vagrant-libvirt (Debian ships it as a system plugin)',
      },
    ]);
  }
}

if (isMain(import.meta.url)) {
  await runScript('setup-host', async (s) => {
    const args = process.argv.slice(2);
    if (args.includes('-h') || args.includes('--help')) return void console.log(USAGE);
    Object.assign(process.env, { DEBIAN_FRONTEND: 'noninteractive', VAGRANT_CHECKPOINT_DISABLE: '1', LC_ALL: 'C' });
    const { flags, problems } = parseFlags('setup-host.ts', args, ['--no-box', '--force-box', '--docker-box']);
    const box = !flags.has('--no-box');
    // Every prerequisite before anything slow: root, apt, and for the box Go >= 1.21 (vms/build-cni-plugins.ts).
    await s.step('prerequisites', async () => {
      const root = { message: 'must run as root', fix: 'sudo npx tsx vms/setup-host.ts' };
      if (process.getuid?.() !== 0) problems.push(root);
      if (!(await which('apt-get', { nothrow: true }))) {
        problems.push({
          message: 'needs apt-get (Debian/Ubuntu)',
          fix: 'install vagrant, vagrant-libvirt, libvirt, qemu and debootstrap by hand, then build-box.ts',
        });
      }
      const go: Problem | undefined = box ? await goProblem('the box build', ' or pass --no-box') : undefined;
      if (go) problems.push(go);
      refuse(problems);
    });
    await s.step(`host packages (${HOST_PACKAGES.length})`, () => hostPackages(s));
    if (box) {
      const force = flags.has('--force-box');
      const texts = await Promise.all(RECIPE_FILES.map((f) => fs.readFile(f, 'utf8')));
      for (const docker of flags.has('--docker-box') ? [false, true] : [false]) {
        const c = boxConfig(docker, process.env);
        await buildBox(s, c, { force, hash: recipeHash(texts, c) });
      }
    }
    s.say(`done in ${formatMs(s.elapsedMs())}`);
  });
}
