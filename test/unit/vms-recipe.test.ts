// The pure parts of the host set-up and box build (vms/*.ts): which packages are missing, apt's mirror, the kernel,
// Go's version, the box settings and its recipe hash (the cache key of the box).
import t from 'tap';
import { aptMirror, boxConfig, boxDir, newestKernel, recipeHash, RECIPE_FILES } from '../../vms/build-box.js';
import { cniCacheDir } from '../../vms/build-cni-plugins.js';
import { compareDotted } from '../../lib/parse/versions.js';

const versionAtLeast = (a: string, b: string) => compareDotted(a, b) >= 0;
import { HOST_PACKAGES, missingPackages } from '../../vms/setup-host.js';

t.test('missingPackages: not listed, not fully installed, or removed with its config left', async (t) => {
  const out = [
    'qemu-utils install ok installed',
    'vagrant deinstall ok config-files',
    'libvirt-clients install ok half-configured',
    'chromium:amd64 install ok installed',
    '',
  ].join('\n');
  t.same(missingPackages(['qemu-utils', 'vagrant', 'libvirt-clients', 'chromium', 'gpgv'], out), [
    'vagrant',
    'libvirt-clients',
    'gpgv',
  ]);
  t.same(missingPackages(['a'], ''), ['a']);
  t.equal(HOST_PACKAGES.length, 21);
  t.notOk(HOST_PACKAGES.includes('golang'), 'Go is a prerequisite, not an apt package (bookworm has 1.19)');
});

t.test("aptMirror: deb822 stanza with bookworm first, then sources.list, else none (Debian's default)", async (t) => {
  const deb822 = [
    'Types: deb\nURIs: http://security.debian.org/debian-security\nSuites: bookworm-security\n',
    'Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n',
  ];
  t.equal(aptMirror(deb822, ''), 'http://mirror.example/debian');
  t.equal(aptMirror([deb822[0]!], 'deb http://ftp.example/debian bookworm main\n'), 'http://ftp.example/debian');
  t.equal(aptMirror([], '# deb http://x bookworm main\ndeb http://y bookworm-updates main\n'), undefined);
});

t.test('newestKernel sorts versions as sort -V does', async (t) => {
  t.equal(newestKernel(['6.1.0-9-amd64', '6.1.0-50-amd64', '6.1.0-10-amd64']), '6.1.0-50-amd64');
  t.equal(newestKernel([]), undefined);
});

t.test('compareDotted orders dotted versions numerically (the Go a recipe needs)', async (t) => {
  t.ok(versionAtLeast('1.21', '1.21'));
  t.ok(versionAtLeast('1.26.8', '1.21'));
  t.notOk(versionAtLeast('1.9', '1.21'));
  t.notOk(versionAtLeast('1.19.8', '1.21'));
});

t.test('boxConfig: plain and Docker box, env overrides each default', async (t) => {
  const plain = boxConfig(false, { HOME: '/home/u' });
  t.match(plain, {
    name: 'nomad-reboot-harness/bookworm',
    work: '/var/tmp/nomad-reboot-harness-box',
    diskGb: 8,
    cniVersion: 'v1.6.2',
    cniCache: '/home/u/.cache/nomad-reboot-harness/cni-plugins-v1.6.2',
    vagrantHome: '/home/u/.vagrant.d',
  });
  t.equal(
    plain.packages.join(','),
    'linux-image-amd64,systemd-sysv,openssh-server,sudo,iproute2,iptables,curl,' +
      'ca-certificates,python3,containernetworking-plugins,dbus,procps,iputils-ping,less,netbase,kmod,udev,busybox',
  );
  const docker = boxConfig(true, { HOME: '/root', BOX_NAME: 'x/y', DISK_GB: '9', WORK: '/w' });
  t.match(docker, { name: 'x/y', work: '/w', diskGb: 9 });
  t.notOk(docker.packages.includes('busybox'));
  t.same(docker.packages.slice(-3), ['busybox-static', 'docker.io', 'apparmor']);
  t.equal(boxConfig(true, {}).work, '/var/tmp/nomad-reboot-harness-box-docker');
  t.equal(boxDir(plain), '/home/u/.vagrant.d/boxes/nomad-reboot-harness-VAGRANTSLASH-bookworm/0/libvirt');
  t.equal(cniCacheDir('v1.7.1', { HOME: '/h' }), '/h/.cache/nomad-reboot-harness/cni-plugins-v1.7.1');
  // the same folder the harness caches its uploads for existing hosts in (lib/cluster/cni-build.ts)
  t.equal(cniCacheDir('v1.6.2', { HOME: '/h', XDG_CACHE_HOME: '/x' }), '/x/nomad-reboot-harness/cni-plugins-v1.6.2');
});

t.test('recipeHash changes with the recipe text and each setting that changes the box', async (t) => {
  const c = boxConfig(false, { HOME: '/root' });
  const base = recipeHash(['a', 'b'], c);
  t.match(base, /^[0-9a-f]{64}$/);
  t.equal(recipeHash(['a', 'b'], { ...c }), base, 'stable');
  t.not(recipeHash(['a', 'b2'], c), base, 'the CNI recipe text');
  t.not(recipeHash(['a', 'b'], { ...c, diskGb: 9 }), base, 'disk size');
  t.not(recipeHash(['a', 'b'], { ...c, name: 'other/box' }), base, 'box name');
  t.not(recipeHash(['a', 'b'], { ...c, cniVersion: 'v1.7.1' }), base, 'CNI version');
  t.not(recipeHash(['a', 'b'], boxConfig(true, { HOME: '/root' })), base, 'the Docker package list');
  t.same(
    RECIPE_FILES.map((f) => f.split('/').slice(-2).join('/')),
    ['vms/build-box.ts', 'vms/build-cni-plugins.ts'],
    'the recipe is the two files CI caches the box by',
  );
});
