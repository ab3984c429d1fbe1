// lab.libvirt_driver: auto, from recorded serial outputs (test/fixtures/kvm-probe/, real QEMU 7.2 on this host): the
// probe's judgement (success and the two failure shapes seen here), the decision, and the cache under XDG_CACHE_HOME.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgeKvmProbe, initLine, type KvmProbeOutput } from '../../lib/parse/kvm-probe-console.js';
import { chooseLibvirtDriver, driverChooser, type AccelDeps } from '../../lib/lab/kvm/accel.js';
import {
  kvmCacheKey,
  kvmCachePath,
  readKvmAnswer,
  writeKvmAnswer,
  type KvmAnswer,
} from '../../lib/lab/kvm/kvm-cache.js';
import { boxKernel } from '../../lib/vagrant/box-files.js';
import { compareDotted } from '../../lib/parse/versions.js';
import { kvmProbeArgv } from '../../lib/lab/kvm/kvm-probe.js';
import { deadlineIn } from '../../lib/time/deadlines.js';

const lines = (n: string) => readFileSync(new URL(`../fixtures/kvm-probe/${n}`, import.meta.url), 'utf8').split('\n');
const out = (o: Partial<KvmProbeOutput>): KvmProbeOutput => ({
  console: [],
  stderr: [],
  end: 'exited',
  durationMs: 4000,
  budgetMs: 60_000,
  ...o,
});
const BOOTS = out({ console: lines('boots-to-init.serial'), end: 'saw-init', durationMs: 4400 });
const MSR = out({ stderr: lines('cpu-host-msr.stderr'), end: 'crashed', durationMs: 300 });
const HANG = out({ console: lines('qemu64-hang.serial'), end: 'timed-out', durationMs: 60_000 });

t.test('judge: the kernel reaching init proves KVM works', async (t) => {
  t.match(initLine(BOOTS.console), /Freeing unused kernel image/);
  const v = judgeKvmProbe(BOOTS);
  t.equal(v.boots, true);
  t.match(v.reason, /^KVM boots the box kernel to init in 4 s \("Freeing unused kernel image/);
  t.equal(
    judgeKvmProbe(out({ console: ['[    0.400000] Run /init as init process'] })).boots,
    true,
    'the userspace line alone',
  );
});

t.test('judge: -cpu host aborting on an MSR (kvm_pvm) names the MSR', async (t) => {
  const v = judgeKvmProbe(MSR);
  t.equal(v.boots, false);
  t.match(v.reason, /aborts with "failed to set MSR 0x10a to 0x69"/);
});

t.test('judge: a hang after the BIOS names the last console line and the budget', async (t) => {
  const v = judgeKvmProbe(HANG);
  t.equal(v.boots, false);
  t.equal(
    v.reason,
    'the box kernel did not reach init under KVM within 60 s ' +
      '(last console line "Probing EDD (edd=off to disable)... ok")',
  );
  t.match(judgeKvmProbe(out({ end: 'timed-out' })).reason, /no console output at all/);
});

t.test('judge: other failures: no access to KVM, a kernel that panics before init', async (t) => {
  const denied = out({
    stderr: [
      'Could not access KVM kernel module: Permission denied',
      'qemu-system-x86_64: failed to initialize kvm: Permission denied',
    ],
    end: 'exited',
    exitCode: 1,
  });
  t.match(judgeKvmProbe(denied), {
    boots: false,
    reason: /^qemu cannot use KVM: Could not access KVM kernel module: Permission denied/,
  });
  const panic = out({ console: ['[    0.1] Kernel panic - not syncing: VFS'], end: 'exited', exitCode: 0 });
  t.match(judgeKvmProbe(panic), {
    boots: false,
    reason: /qemu exited 0 before the kernel reached init under KVM \(last console line "\[ {4}0\.1\] Kernel panic/,
  });
});

t.test('the probe boots the box kernel directly under KVM, host CPU, no disk, network or reboot', async (t) => {
  const [file, args] = kvmProbeArgv('/b/vmlinuz', '/b/initrd.img');
  t.equal(file, 'qemu-system-x86_64');
  t.match(args.join(' '), /^-enable-kvm -cpu host .*-kernel \/b\/vmlinuz -initrd \/b\/initrd\.img /);
  t.match(args.join(' '), / -append console=ttyS0 panic=-1 /);
  t.match(args.join(' '), / -nographic -no-reboot -nic none$/);
});

/** Recorded effects: a host with /dev/kvm, the box's kernel, a probe answering from a fixture, an in-memory cache. */
function deps(probe: KvmProbeOutput, o: { devKvm?: boolean; box?: boolean } = {}) {
  const cache = new Map<string, KvmAnswer>();
  const probes: string[] = [];
  const d: AccelDeps = {
    devKvm: async () => o.devKvm ?? true,
    kvmModules: async () => ['kvm', 'kvm_pvm'],
    boxKernel: async (box) =>
      (o.box ?? true)
        ? { kernel: `/boxes/${box}/vmlinuz`, initrd: `/boxes/${box}/initrd.img`, version: '0' }
        : { missing: `box ${box} is not added` },
    cacheKey: async (box, kernel, modules) => `${box}|${kernel}|${modules.join('+')}`,
    readAnswer: async (k) => cache.get(k),
    writeAnswer: async (k, a) => void cache.set(k, a),
    probe: async (kernel) => {
      probes.push(kernel);
      return probe;
    },
    cachePath: '/cache/kvm-probe.json',
    now: () => new Date('2026-12-03T08:00:00Z'),
  };
  return { d, cache, probes };
}
const BOX = 'nomad-reboot-harness/bookworm';

t.test('auto: a failed probe picks emulation and says why; the answer is cached and reused', async (t) => {
  const { d, cache, probes } = deps(MSR);
  const first = await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), d);
  t.match(first, {
    driver: 'qemu',
    source: 'probe',
    reason: /^software emulation \(TCG\): qemu -enable-kvm -cpu host aborts with "failed to set MSR 0x10a/,
  });
  t.equal(cache.size, 1);
  const second = await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), d);
  t.match(second, {
    driver: 'qemu',
    source: 'cache',
    reason: /\(probed 2026-12-03T08:00:00\.000Z; cached in \/cache\/kvm-probe\.json\)$/,
  });
  t.same(probes, [`/boxes/${BOX}/vmlinuz`], 'probed once');
});

t.test('auto: a probe that reaches init picks KVM; a hang picks emulation', async (t) => {
  t.match(await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), deps(BOOTS).d), {
    driver: 'kvm',
    source: 'probe',
    reason: /^KVM: KVM boots/,
  });
  t.match(await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), deps(HANG).d), {
    driver: 'qemu',
    reason: /did not reach init under KVM within 60 s/,
  });
});

t.test(
  'auto without /dev/kvm or without a box kernel: emulation, no probe; explicit settings are obeyed',
  async (t) => {
    const noKvm = deps(BOOTS, { devKvm: false });
    t.match(await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), noKvm.d), {
      driver: 'qemu',
      source: 'host',
      reason: /\/dev\/kvm is missing/,
    });
    const noBox = deps(BOOTS, { box: false });
    t.match(await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), noBox.d), {
      driver: 'qemu',
      reason: /KVM not probed, box .* is not added \(lab\.libvirt_driver: kvm forces KVM\)/,
    });
    t.same([...noKvm.probes, ...noBox.probes], []);
    const forced = deps(MSR);
    t.match(await chooseLibvirtDriver('kvm', BOX, deadlineIn(1000), forced.d), { driver: 'kvm', source: 'config' });
    t.match(await chooseLibvirtDriver('qemu', BOX, deadlineIn(1000), forced.d), { driver: 'qemu', source: 'config' });
    t.same(forced.probes, []);
  },
);

t.test('driverChooser: parallel runs of one process share one probe', async (t) => {
  const { d, probes } = deps(MSR);
  const choose = driverChooser(d);
  const all = await Promise.all([1, 2, 3].map(() => choose('auto', BOX, deadlineIn(1000))));
  t.same(
    all.map((c) => c.driver),
    ['qemu', 'qemu', 'qemu'],
  );
  t.equal(probes.length, 1);
});

t.test(
  'cache file: under XDG_CACHE_HOME (else ~/.cache), keyed by host and box, survives a foreign file',
  async (t) => {
    t.equal(kvmCachePath({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/nomad-reboot-harness/kvm-probe.json');
    t.match(
      kvmCachePath({ XDG_CACHE_HOME: 'relative' }),
      /\/\.cache\/nomad-reboot-harness\/kvm-probe\.json$/,
      'a relative XDG path is ignored (XDG spec)',
    );
    const key = (o: Partial<Parameters<typeof kvmCacheKey>[0]>) =>
      kvmCacheKey({
        host: 'h',
        hostKernel: '6.1',
        kvmModules: ['kvm_intel', 'kvm'],
        box: BOX,
        kernelSha256: 'ab'.repeat(32),
        ...o,
      });
    t.equal(key({}), `h|6.1|kvm+kvm_intel|${BOX}|abababababababab`);
    t.not(key({ box: 'other' }), key({}));
    t.not(key({ kernelSha256: 'cd'.repeat(32) }), key({}), 'a rebuilt box kernel is probed again');
    t.not(key({ kvmModules: ['kvm', 'kvm_pvm'] }), key({}));
    const dir = t.testdir({ 'kvm-probe.json': 'not json' });
    const path = join(dir, 'sub', 'kvm-probe.json');
    t.equal(await readKvmAnswer(join(dir, 'kvm-probe.json'), 'k'), undefined);
    const a: KvmAnswer = { driver: 'qemu', reason: 'r', probedAt: '2026-12-03T08:00:00.000Z' };
    await writeKvmAnswer(path, 'k', a);
    await writeKvmAnswer(path, 'k2', { ...a, driver: 'kvm' });
    t.same(await readKvmAnswer(path, 'k'), a);
    t.equal((await readKvmAnswer(path, 'k2'))?.driver, 'kvm');
  },
);

t.test('box files: the newest version of the box, under VAGRANT_HOME', async (t) => {
  t.same(['1.10', '0', '1.2'].sort(compareDotted), ['0', '1.2', '1.10']);
  const home = t.testdir({
    boxes: {
      'a-VAGRANTSLASH-b': {
        '0': { libvirt: { vmlinuz: 'old', 'initrd.img': 'old' } },
        '1.10': { libvirt: { vmlinuz: 'k', 'initrd.img': 'i' } },
        '1.2': { libvirt: {} },
      },
      'no-kernel': { '0': { libvirt: { 'box.img': '' } } },
    },
  });
  t.match(await boxKernel('a/b', 'libvirt', { VAGRANT_HOME: home }), {
    version: '1.10',
    kernel: join(home, 'boxes/a-VAGRANTSLASH-b/1.10/libvirt/vmlinuz'),
  });
  t.match(await boxKernel('no-kernel', 'libvirt', { VAGRANT_HOME: home }), {
    missing: /ships no vmlinuz \+ initrd\.img/,
  });
  t.match(await boxKernel('absent', 'libvirt', { VAGRANT_HOME: home }), { missing: /box absent is not added/ });
});

t.test('a probe whose qemu never started a guest is no answer about KVM: emulation now, nothing cached', async (t) => {
  const exited97 = out({ end: 'exited', exitCode: 97, durationMs: 20 });
  const notFound = out({ end: 'crashed', stderr: ['spawn qemu-system-x86_64 ENOENT'], durationMs: 5 });
  const badKernel = out({
    end: 'exited',
    exitCode: 1,
    stderr: ["qemu-system-x86_64: could not load kernel '/boxes/b/vmlinuz': No such file or directory"],
  });
  for (const [what, o] of [
    ['exit 97, nothing printed', exited97],
    ['qemu not found', notFound],
    ['an unreadable kernel', badKernel],
  ] as const) {
    t.match(judgeKvmProbe(o), { boots: false, answered: false, reason: /^the KVM probe could not start: qemu / }, what);
  }
  t.match(judgeKvmProbe(exited97).reason, /qemu exited 97 \(no console output at all\)$/);
  // qemu that ran the guest under KVM and gave up is an answer, console or not
  const internal = out({
    end: 'exited',
    exitCode: 1,
    stderr: ['KVM internal error. Suberror: 1', 'emulation failure'],
  });
  t.match(judgeKvmProbe(internal), { boots: false, answered: true, reason: /^qemu exited 1 before the kernel/ });
  t.match(judgeKvmProbe(MSR), { answered: true });
  t.match(judgeKvmProbe(HANG), { answered: true });

  const { d, cache, probes } = deps(exited97);
  const first = await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), d);
  t.match(first, {
    driver: 'qemu',
    source: 'probe',
    reason:
      /^software emulation \(TCG\): the KVM probe could not start: qemu exited 97 .*; not cached, the next run probes again$/,
  });
  t.equal(cache.size, 0, 'nothing cached');
  const second = await chooseLibvirtDriver('auto', BOX, deadlineIn(1000), d);
  t.equal(second.source, 'probe', 'the next run probes again, not "decided by cache"');
  t.equal(probes.length, 2);
});
