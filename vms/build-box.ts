// Build the offline Debian bookworm Vagrant box "nomad-reboot-harness/bookworm" for libvirt; with --docker,
// "nomad-reboot-harness/bookworm-docker": the same plus Debian's docker.io and a static busybox (the docker variant of
// the reboot scenario builds its image from it inside the VM). Run: sudo npx tsx vms/build-box.ts [flags]
//
// Only the Debian mirror apt already uses is contacted (debootstrap), and the Go module proxy for the CNI plugins.
// The box boots by DIRECT KERNEL BOOT: vmlinuz + initrd.img ship inside the box and the box's own Vagrantfile copies
// them to /var/lib/libvirt/boot/ (qemu runs as libvirt-qemu and cannot read root's ~/.vagrant.d).
//
// Cached: the box carries recipe.sha256, the hash of this file, vms/build-cni-plugins.ts and the settings (package
// list, disk size, box name, CNI version). When the box with that hash is already added, the build is skipped.
// Note: CI caches the box keyed by exactly these two files (GitLab's cache:key:files takes at most two), so the whole
// recipe lives in them; tools/steps.ts only prints.
import { $, fs, path, which } from 'zx';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { fail, isMain, parseFlags, probe, refuse, runScript, type Problem, type Script } from '../tools/steps.js';
import {
  buildCniPlugins,
  cniCacheDir,
  cniPresent,
  CNI_PLUGIN_NAMES,
  CNI_PLUGINS_DEFAULT_VERSION,
  goProblem,
} from './build-cni-plugins.js';

const USAGE = `Usage: build-box.ts [--docker] [--force | --check | --print-hash]
  --docker      the Docker box (nomad-reboot-harness/bookworm-docker: its own name, work folder and recipe hash)
  --force       rebuild even when the added box has the current recipe hash
  --check       only tell: exit 0 = the current box is added, 1 = a build is needed
  --print-hash  print the recipe hash and exit
Needs root, debootstrap, qemu-utils (qemu-img), e2fsprogs (mkfs.ext4 -d), vagrant, Go >= 1.21 (vms/setup-host.ts).
Env: BOX_NAME, DISK_GB (8), MIRROR (default: apt's bookworm mirror), WORK (build folder), CNI_PLUGINS_VERSION,
     CNI_CACHE (where the plugins are built), VAGRANT_HOME.
Exit codes: 0 built or current, 1 a step failed (or --check: a build is needed), 2 bad arguments or prerequisites.`;

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The files whose text is the recipe (CI cache keys name the same two). */
export const RECIPE_FILES = [path.join(HERE, 'build-box.ts'), path.join(HERE, 'build-cni-plugins.ts')];

/**
 * Guest packages. Recipe base + what Nomad (exec driver, bridge networking) and our checks use: iptables/kmod
 * (bridge + br_netfilter + nat), containernetworking-plugins (/usr/lib/cni: bridge, host-local, loopback, firewall,
 * portmap), curl/python3 (HTTP probes and the test job), busybox (tiny httpd for jobs), ca-certificates, procps
 * (Vagrant checks `ps -o comm= 1`), iputils-ping.
 */
const PACKAGES = [
  'linux-image-amd64',
  'systemd-sysv',
  'openssh-server',
  'sudo',
  'iproute2',
  'iptables',
  'curl',
  'ca-certificates',
  'python3',
  'containernetworking-plugins',
  'dbus',
  'procps',
  'iputils-ping',
  'less',
  'netbase',
  'kmod',
  'udev',
  'busybox',
];
/**
 * Docker box: Debian's docker.io (dockerd restarts Nomad's pause containers at boot: the GH-24292 path), apparmor
 * (Debian's kernel enables AppArmor, and dockerd then refuses to create containers without apparmor_parser to load
 * its docker-default profile: seen on the first real run), and busybox-static instead of busybox (a static binary is
 * a whole image: no registry is reachable from the lab).
 */
const DOCKER_PACKAGES = [...PACKAGES.filter((p) => p !== 'busybox'), 'busybox-static', 'docker.io', 'apparmor'];
/** Kernel modules Nomad bridge networking loads at run time (checked in the root fs). */
const NEED_MODULES = [
  'bridge',
  'br_netfilter',
  'veth',
  'nf_nat',
  'nf_conntrack',
  'nf_tables',
  'nft_compat',
  'nft_chain_nat',
  'ip_tables',
  'iptable_nat',
  'iptable_filter',
  'xt_MASQUERADE',
  'xt_comment',
  'xt_mark',
  'xt_addrtype',
  'xt_multiport',
  'xt_conntrack',
];
/** Units that only cost boot time under software emulation (periodic maintenance). */
const MASKED_UNITS = [
  'e2scrub_reap.service',
  'e2scrub_all.timer',
  'apt-daily.timer',
  'apt-daily-upgrade.timer',
  'fstrim.timer',
];
/** What the image build runs on the host. */
const HOST_COMMANDS = ['debootstrap', 'qemu-img', 'mkfs.ext4', 'vagrant', 'chroot', 'modinfo', 'tar', 'install'];
/** Debian's own mirror, when apt's sources name none for bookworm. */
const DEFAULT_MIRROR = 'http://deb.debian.org/debian';
/** ext4 size in GB, sparse: the qcow2 stores only used blocks (~260 MiB). */
const DEFAULT_DISK_GB = 8;

/** The box's settings, from the flags and the environment. */
export interface BoxConfig {
  docker: boolean;
  name: string;
  work: string;
  diskGb: number;
  packages: string[];
  cniVersion: string;
  cniCache: string;
  vagrantHome: string;
}

/** The settings for the plain or the Docker box; env overrides each default. Pure. */
export function boxConfig(docker: boolean, env: NodeJS.ProcessEnv): BoxConfig {
  const home = env['HOME'] || '/root';
  const cniVersion = env['CNI_PLUGINS_VERSION'] || CNI_PLUGINS_DEFAULT_VERSION;
  return {
    docker,
    name: env['BOX_NAME'] || (docker ? 'nomad-reboot-harness/bookworm-docker' : 'nomad-reboot-harness/bookworm'),
    work: env['WORK'] || (docker ? '/var/tmp/nomad-reboot-harness-box-docker' : '/var/tmp/nomad-reboot-harness-box'),
    diskGb: Number(env['DISK_GB'] || DEFAULT_DISK_GB),
    packages: docker ? DOCKER_PACKAGES : PACKAGES,
    cniVersion,
    cniCache: env['CNI_CACHE'] || cniCacheDir(cniVersion, { HOME: home }),
    vagrantHome: env['VAGRANT_HOME'] || path.join(home, '.vagrant.d'),
  };
}

/** The recipe hash: sha256 of the recipe files' text and the settings that change the box. Pure. */
export function recipeHash(recipeTexts: readonly string[], c: BoxConfig): string {
  const h = createHash('sha256');
  for (const t of recipeTexts) h.update(t);
  h.update(`pkgs=${c.packages.join(',')}\ndisk=${c.diskGb}\nbox=${c.name}\ncni=${c.cniVersion}\n`);
  return h.digest('hex');
}

/** Where Vagrant keeps the added box (its recipe.sha256 says which recipe built it). Pure. */
export function boxDir(c: BoxConfig): string {
  return path.join(c.vagrantHome, 'boxes', c.name.replace(/\//g, '-VAGRANTSLASH-'), '0', 'libvirt');
}

/** The recipe hash of the added box, or '' when none is added. */
async function installedHash(c: BoxConfig): Promise<string> {
  return (await fs.readFile(path.join(boxDir(c), 'recipe.sha256'), 'utf8').catch(() => '')).trim();
}

/**
 * apt's bookworm mirror: the first `URIs:` of a deb822 stanza whose Suites include bookworm, else the first
 * `deb <uri> bookworm` line of sources.list, else undefined. Pure.
 */
export function aptMirror(deb822: readonly string[], sourcesList: string): string | undefined {
  for (const text of deb822) {
    let uri: string | undefined;
    for (const line of text.split('\n')) {
      const u = /^URIs:\s*(\S+)/.exec(line);
      if (u) uri = u[1];
      if (/^Suites:.*\bbookworm( |$)/.test(line) && uri) return uri;
    }
  }
  for (const line of sourcesList.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === 'deb' && f[2] === 'bookworm' && f[1]) return f[1];
  }
  return undefined;
}

/** The newest kernel version among /lib/modules entries (as `sort -V | tail -1`). Pure. */
export function newestKernel(names: readonly string[]): string | undefined {
  return [...names].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
}

/** The box's own Vagrantfile: direct kernel boot with the kernel shipped in the box. */
const BOX_VAGRANTFILE = `# Box defaults (nomad-reboot-harness): direct kernel boot with the kernel shipped in the box.
require "fileutils"
boxdir  = File.dirname(__FILE__)
bootdir = "/var/lib/libvirt/boot"
tag     = File.basename(File.expand_path("../..", boxdir)).gsub(/[^A-Za-z0-9_.-]/, "_")
kernel  = File.join(bootdir, "#{tag}-vmlinuz")
initrd  = File.join(bootdir, "#{tag}-initrd.img")
begin
  FileUtils.mkdir_p(bootdir)
  { "vmlinuz" => kernel, "initrd.img" => initrd }.each do |src, dst|
    s = File.join(boxdir, src)
    FileUtils.cp(s, dst) if File.exist?(s) && !(File.exist?(dst) && FileUtils.compare_file(s, dst))
  end
rescue SystemCallError => e
  warn "nomad-reboot-harness box: cannot install kernel into #{bootdir}: #{e}"
end
Vagrant.configure("2") do |config|
  config.vm.synced_folder ".", "/vagrant", disabled: true
  config.vm.provider :libvirt do |lv|
    lv.kernel   = kernel
    lv.initrd   = initrd
    lv.cmd_line = "root=/dev/vda rw console=ttyS0 net.ifnames=0 mitigations=off quiet"
    lv.disk_bus = "virtio"
    lv.nic_model_type = "virtio"
    lv.video_type = "none"
    lv.graphics_type = "none"
  end
end
`;

/** Vagrant's insecure public key (Debian's vagrant package), put into the box for the first `vagrant up`. */
async function vagrantPublicKey(): Promise<string | undefined> {
  const gems = '/usr/share/rubygems-integration/all/gems';
  const dirs = (await listDir(gems)).filter((d) => d.startsWith('vagrant-')).sort();
  const fromGems = dirs.map((d) => path.join(gems, d, 'keys/vagrant.pub'));
  const candidates = [...fromGems, '/usr/share/vagrant/keys/vagrant.pub'];
  for (const c of candidates) if (await fs.pathExists(c)) return c;
  return undefined;
}

/** Every prerequisite of a build, checked before anything is changed (root, host commands, the key, Go). */
async function buildProblems(c: BoxConfig): Promise<Problem[]> {
  const problems: Problem[] = [];
  if (process.getuid?.() !== 0)
    problems.push({ message: 'must run as root (debootstrap, chroot)', fix: 'sudo npx tsx vms/build-box.ts' });
  for (const cmd of HOST_COMMANDS) {
    if (!(await which(cmd, { nothrow: true })))
      problems.push({ message: `missing ${cmd} on PATH`, fix: 'sudo npx tsx vms/setup-host.ts --no-box' });
  }
  if (!(await vagrantPublicKey()))
    problems.push({ message: "Vagrant's insecure public key not found", fix: 'apt-get install --reinstall vagrant' });
  if (!(await cniPresent(c.cniCache, c.cniVersion))) {
    const go = await goProblem(`building the CNI plugins ${c.cniVersion}`, '');
    if (go) problems.push(go);
  }
  if (!Number.isInteger(c.diskGb) || c.diskGb < 2)
    problems.push({ message: `DISK_GB=${c.diskGb} is not a size in GB`, fix: 'set DISK_GB to a whole number >= 2' });
  return problems;
}

/** The Debian mirror this host's apt uses for bookworm (deb822 sources first, then sources.list), else Debian's. */
async function hostMirror(): Promise<string> {
  const dir = '/etc/apt/sources.list.d';
  const deb822 = (await listDir(dir)).filter((f) => f.endsWith('.sources')).sort();
  const texts = await Promise.all(deb822.map((f) => fs.readFile(path.join(dir, f), 'utf8')));
  const list = await fs.readFile('/etc/apt/sources.list', 'utf8').catch(() => '');
  return aptMirror(texts, list) ?? DEFAULT_MIRROR;
}

/** The names in `dir`, or none when it does not exist. */
async function listDir(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch((): string[] => []);
}

/** Remove the entries of `dir` that `match` selects (rm -rf dir/<match>). */
async function removeIn(dir: string, match: (name: string) => boolean = () => true): Promise<void> {
  for (const name of await listDir(dir)) if (match(name)) await fs.remove(path.join(dir, name));
}

/** Build the box unless the added one has the current recipe; `force` rebuilds anyway. */
export async function buildBox(s: Script, c: BoxConfig, o: { force: boolean; hash: string }): Promise<void> {
  const { hash } = o;
  if (!o.force && (await installedHash(c)) === hash) {
    s.say(`box ${c.name} is current (recipe ${hash}); nothing to do (--force rebuilds)`);
    return;
  }
  await s.step(`prerequisites of the box ${c.name}`, async () => refuse(await buildProblems(c)));
  const mirror = process.env['MIRROR'] || (await hostMirror());
  s.say(`box ${c.name}: recipe ${hash}, mirror ${mirror}, work dir ${c.work}`);
  const root = path.join(c.work, 'rootfs');
  const inRoot = (...p: string[]) => path.join(root, ...p);
  const chroot = (args: string[]) => $`chroot ${root} ${args}`;

  await s.step(
    `debootstrap bookworm (minbase + ${c.packages.length} packages)`,
    async () => {
      await fs.remove(c.work);
      await fs.ensureDir(path.join(c.work, 'box'));
      await $`debootstrap --variant=minbase --include=${c.packages.join(',')} bookworm ${root} ${mirror}`;
    },
    { fix: `check that the mirror ${mirror} answers (MIRROR=<url> picks another) and that ${c.work} has space` },
  );

  await s.step('root filesystem: hostname, journal, networkd, ssh, initramfs, masked timers', async () => {
    await fs.writeFile(inRoot('etc/hostname'), 'nrh\n');
    await fs.writeFile(inRoot('etc/hosts'), '127.0.0.1 localhost\n127.0.1.1 nrh\n');
    await fs.writeFile(inRoot('etc/fstab'), '/dev/vda / ext4 errors=remount-ro 0 1\n');
    await fs.writeFile(inRoot('etc/machine-id'), ''); // empty: each VM generates its own on first boot
    await fs.remove(inRoot('var/lib/dbus/machine-id'));
    // persistent journal: evidence needs `journalctl -b -1` (the boot before the reboot)
    await fs.ensureDir(inRoot('var/log/journal'));
    await fs.outputFile(
      inRoot('etc/systemd/journald.conf.d/nrh.conf'),
      '[Journal]\nStorage=persistent\nSystemMaxUse=200M\n',
    );
    // networking: systemd-networkd, DHCP on eth0 (Vagrant writes 50-vagrant-eth1.network itself)
    await fs.outputFile(
      inRoot('etc/systemd/network/10-eth0.network'),
      '[Match]\nName=eth0\n[Network]\nDHCP=ipv4\n[DHCPv4]\nClientIdentifier=mac\n',
    );
    await chroot(['systemctl', 'enable', 'systemd-networkd.service']);
    await chroot(['systemctl', 'mask', 'systemd-networkd-wait-online.service']);
    // ssh: per-VM host keys generated at boot, no DNS lookups
    await removeIn(inRoot('etc/ssh'), (n) => n.startsWith('ssh_host_'));
    await fs.outputFile(
      inRoot('etc/systemd/system/ssh.service.d/keygen.conf'),
      '[Service]\nExecStartPre=\nExecStartPre=/usr/bin/ssh-keygen -A\nExecStartPre=/usr/sbin/sshd -t\n',
    );
    await fs.writeFile(inRoot('etc/ssh/sshd_config.d/vagrant.conf'), 'UseDNS no\n');
    await chroot(['systemctl', 'enable', 'serial-getty@ttyS0.service']);
    // faster boot under software emulation: small initramfs (only affects the initramfs; the root fs keeps every
    // module), no periodic maintenance jobs
    await fs.appendFile(inRoot('etc/initramfs-tools/modules'), 'virtio_pci\nvirtio_blk\nvirtio_net\next4\n');
    await fs.writeFile(inRoot('etc/initramfs-tools/conf.d/nrh.conf'), 'MODULES=list\n');
    await chroot(['update-initramfs', '-u', '-k', 'all']);
    await chroot(['systemctl', 'mask', ...MASKED_UNITS]);
  });

  if (c.docker) {
    await s.step('Docker: dockerd and containerd at every boot, a static busybox', async () => {
      // dockerd at every boot (it restarts the pause containers, restart policy unless-stopped, before Nomad restores)
      await chroot(['systemctl', 'enable', 'containerd.service', 'docker.service']);
      const fix = 'check the package list of the Docker box (docker.io, busybox-static) in vms/build-box.ts';
      if (!(await fs.pathExists(inRoot('usr/sbin/dockerd')))) fail('docker.io did not install /usr/sbin/dockerd', fix);
      if ((await probe`chroot ${root} ldd /bin/busybox`).ok) fail('/bin/busybox is not static', fix);
    });
  }

  const user = "vagrant user: password-less sudo, Vagrant's insecure key (replaced per machine on first up)";
  await s.step(user, async () => {
    const key = (await vagrantPublicKey())!;
    await chroot(['useradd', '-m', '-s', '/bin/bash', '-U', 'vagrant']);
    await $({ input: 'vagrant:vagrant\n' })`chroot ${root} chpasswd`;
    await $({ input: 'root:vagrant\n' })`chroot ${root} chpasswd`;
    await fs.writeFile(inRoot('etc/sudoers.d/vagrant'), 'vagrant ALL=(ALL) NOPASSWD:ALL\n');
    await fs.chmod(inRoot('etc/sudoers.d/vagrant'), 0o440);
    await $`install -d -m 700 -o 1000 -g 1000 ${inRoot('home/vagrant/.ssh')}`;
    await $`install -m 600 -o 1000 -g 1000 ${key} ${inRoot('home/vagrant/.ssh/authorized_keys')}`;
  });

  // Nomad's CNI plugins: Debian's 1.1.1 (/usr/lib/cni, used by cni-ipam-reboot) prints "version unknown", which fails
  // Nomad's plugin version constraints for bridge jobs; so the box also carries versioned builds.
  await buildCniPlugins(s, c.cniCache, c.cniVersion);
  await s.step(`install the CNI plugins ${c.cniVersion} into /opt/cni/bin`, async () => {
    await $`install -d ${inRoot('opt/cni/bin')}`;
    await $`install -m 0755 ${CNI_PLUGIN_NAMES.map((p) => path.join(c.cniCache, p))} ${inRoot('opt/cni/bin')}`;
  });

  await s.step('trim: apt lists, docs, man pages, logs', async () => {
    await chroot(['apt-get', 'clean']);
    await removeIn(inRoot('var/lib/apt/lists'));
    await removeIn(inRoot('usr/share/doc'));
    await removeIn(inRoot('usr/share/man'));
    await removeIn(inRoot('var/log'), (n) => n.endsWith('.log'));
    await removeIn(inRoot('var/cache/debconf'), (n) => n.endsWith('-old'));
  });

  const kver = await s.step('check: kernel modules for bridge networking, CNI plugins', async () => {
    const kver = newestKernel(await listDir(inRoot('lib/modules')));
    if (!kver) return fail(`no kernel in ${inRoot('lib/modules')}`, 'check that linux-image-amd64 installed');
    const missing: string[] = [];
    for (const m of NEED_MODULES) {
      if (!(await probe`modinfo -b ${root} -k ${kver} -F filename ${m}`).ok) missing.push(m);
    }
    if (missing.length)
      fail(`kernel modules missing from the root fs: ${missing.join(' ')}`, 'check the kernel package of the box');
    for (const p of CNI_PLUGIN_NAMES) {
      for (const dir of ['usr/lib/cni', 'opt/cni/bin']) {
        const file = inRoot(dir, p);
        const ok = await fs.access(file, fs.constants.X_OK).then(
          () => true,
          () => false,
        );
        if (!ok) fail(`CNI plugin /${dir}/${p} missing`, 'check containernetworking-plugins and the CNI build above');
      }
    }
    s.say(`guest kernel ${kver}; modules present: ${NEED_MODULES.join(' ')}`);
    return kver;
  });

  const raw = path.join(c.work, 'root.raw');
  const boxFiles = path.join(c.work, 'box');
  await s.step(`disk image: kernel, initrd, ${c.diskGb} GB ext4 (sparse) as compressed qcow2`, async () => {
    await fs.copyFile(inRoot('boot', `vmlinuz-${kver}`), path.join(boxFiles, 'vmlinuz'));
    await fs.copyFile(inRoot('boot', `initrd.img-${kver}`), path.join(boxFiles, 'initrd.img'));
    await $`truncate -s ${`${c.diskGb}G`} ${raw}`;
    await $`mkfs.ext4 -q -F -L nrh-root -d ${root} ${raw}`; // no loop device or mount needed
    await $`qemu-img convert -c -O qcow2 ${raw} ${path.join(boxFiles, 'box.img')}`;
    await fs.remove(raw);
  });

  const boxFile = path.join(c.work, 'nrh-bookworm.box');
  await s.step('package the box', async () => {
    await fs.writeFile(
      path.join(boxFiles, 'metadata.json'),
      `{"provider": "libvirt", "format": "qcow2", "virtual_size": ${c.diskGb}}\n`,
    );
    await fs.writeFile(path.join(boxFiles, 'recipe.sha256'), `${hash}\n`);
    await fs.writeFile(path.join(boxFiles, 'Vagrantfile'), BOX_VAGRANTFILE);
    const files = ['metadata.json', 'Vagrantfile', 'recipe.sha256', 'box.img', 'vmlinuz', 'initrd.img'];
    await $({ cwd: boxFiles })`tar -czf ${boxFile} ${files}`;
    s.say(`${boxFile}: ${((await fs.stat(boxFile)).size / 2 ** 20).toFixed(1)} MiB`);
  });

  await s.step(`remove stale base volumes of ${c.name} from libvirt's default pool`, () => removeStaleVolumes(s, c));

  await s.step(`vagrant box add ${c.name}`, async () => {
    await $`vagrant box add --force --name ${c.name} ${boxFile}`;
    if ((await installedHash(c)) !== hash)
      fail(`box added but ${boxDir(c)}/recipe.sha256 does not say ${hash}`, `check ${boxDir(c)}, then --force`);
    await fs.remove(root);
    await fs.remove(boxFiles); // keep only the .box file
  });
  s.say(`box ${c.name} built (recipe ${hash})`);
}

/**
 * vagrant-libvirt uploads each box once into the "default" pool as
 * <name with -VAGRANTSLASH->_vagrant_box_image_<ver>_<timestamp>_box.img and never refreshes it.
 * Delete this box's old base volumes that no other volume (a VM overlay) is backed by.
 */
async function removeStaleVolumes(s: Script, c: BoxConfig): Promise<void> {
  const virsh = (args: string[]) => probe`virsh -q -c qemu:///system ${args}`;
  if (!(await virsh(['pool-info', 'default'])).ok) {
    s.say(`libvirtd not reachable: stale base volumes of ${c.name} (if any) were not cleaned`);
    return;
  }
  const prefix = `${c.name.replace(/\//g, '-VAGRANTSLASH-')}_vagrant_box_image_`;
  const vols = (await virsh(['vol-list', 'default'])).stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
  const others = vols.filter((v) => !v.startsWith(prefix));
  for (const v of vols.filter((v) => v.startsWith(prefix))) {
    const found = await virsh(['vol-path', '--pool', 'default', v]);
    const fix = 'check libvirtd (virsh -c qemu:///system pool-list)';
    if (!found.ok) fail(`virsh vol-path ${v}: ${found.stderr.trim()}`, fix);
    const volPath = found.stdout.trim();
    let used = false;
    for (const o of others) {
      const xml = (await virsh(['vol-dumpxml', '--pool', 'default', o])).stdout;
      if (xml.includes(`<path>${volPath}</path>`)) used = true;
    }
    if (used) s.say(`keeping ${v} (a VM disk uses it)`);
    else await $`virsh -c qemu:///system vol-delete --pool default ${v}`;
  }
}

if (isMain(import.meta.url)) {
  await runScript('build-box', async (s) => {
    const args = process.argv.slice(2);
    if (args.includes('-h') || args.includes('--help')) return void console.log(USAGE);
    const { flags, problems } = parseFlags('build-box.ts', args, ['--docker', '--force', '--check', '--print-hash']);
    refuse(problems);
    const c = boxConfig(flags.has('--docker'), process.env);
    const hash = recipeHash(await Promise.all(RECIPE_FILES.map((f) => fs.readFile(f, 'utf8'))), c);
    if (flags.has('--print-hash')) return void console.log(hash);
    if (flags.has('--check')) {
      const have = await installedHash(c);
      if (have === hash) return void console.log(`box ${c.name} is current (${hash})`);
      console.log(`box ${c.name} missing or stale (have '${have}', want ${hash})`);
      return 1;
    }
    await buildBox(s, c, { force: flags.has('--force'), hash });
  });
}
