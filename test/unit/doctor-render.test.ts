import t from 'tap';
import { readFileSync } from 'node:fs';
import {
  detectAccel,
  memAvailableBytes,
  nearestExisting,
  renderDoctor,
  runDoctor,
  type DoctorItem,
} from '../../lib/cli/doctor.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { RunCommand } from '../../lib/exec/run.js';

const fx = (n: string) => readFileSync(new URL(`../fixtures/cluster/${n}`, import.meta.url), 'utf8');

t.test('detectAccel: software emulation on this kind of host (kvm_pvm, no vmx/svm), KVM with vmx', async (t) => {
  const pvm = detectAccel(fx('cpuinfo-no-vmx.txt'), true, ['kvm', 'kvm_pvm', 'bridge']);
  t.equal(pvm.driver, 'qemu');
  t.match(pvm.detail, /^software emulation \(TCG\): kvm_pvm is loaded/);
  t.match(detectAccel(fx('cpuinfo-no-vmx.txt'), false, []), { driver: 'qemu', detail: /no vmx\/svm flag/ });
  const vmx = fx('cpuinfo-no-vmx.txt').replace(/^flags\s*:/m, 'flags\t\t: vmx');
  t.match(detectAccel(vmx, true, ['kvm', 'kvm_intel']), {
    driver: 'kvm',
    detail: /hardware virtualization \(KVM, vmx\)/,
  });
  t.match(detectAccel(vmx, false, []), { driver: 'qemu', detail: /\/dev\/kvm is missing/ });
});

t.test('memAvailableBytes', async (t) => {
  t.equal(memAvailableBytes('MemTotal: 100 kB\nMemAvailable:    2048 kB\n'), 2048 * 1024);
  t.equal(memAvailableBytes('MemTotal: 100 kB\n'), undefined);
});

t.test('renderDoctor shows each failure with its fix and a summary', async (t) => {
  const items: DoctorItem[] = [
    { name: 'vagrant', ok: true, detail: 'Vagrant 2.3.4', fix: '' },
    { name: 'box', ok: false, detail: 'missing', fix: 'sudo npx tsx vms/build-box.ts' },
  ];
  const out = renderDoctor(items);
  t.match(out, /^ok {4}vagrant {2}Vagrant 2\.3\.4$/m);
  t.match(out, /^FAIL {2}box {6}missing\n\s+fix: sudo npx tsx vms\/build-box\.ts$/m);
  t.match(out, /1 of 2 checks failed\n$/);
  t.match(renderDoctor(items.slice(0, 1)), /all 1 checks passed/);
});

t.test('runDoctor on a host without vagrant or libvirt names the fixes', async (t) => {
  const run: RunCommand = async (file) => {
    if (file === 'vagrant' || file === 'qemu-system-x86_64') throw new Error(`spawn ${file} ENOENT`);
    return { code: 1, stdout: '', stderr: 'error: failed to connect to the hypervisor\n', durationMs: 1 };
  };
  const dir = t.testdir({});
  const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, nomadBinary: `${dir}/nomad`, run });
  const by = Object.fromEntries(items.map((i) => [i.name, i]));
  t.match(by.vagrant, { ok: false, fix: /setup/ });
  t.match(by['vagrant-libvirt plugin'], { ok: false, fix: /vagrant-libvirt/ });
  t.match(by['libvirtd reachable'], {
    ok: false,
    detail: /failed to connect/,
    fix: /ip netns exec nrh-lab libvirtd -d/,
  });
  t.match(by.box, { ok: false, fix: /build-box\.ts/ });
  t.match(by['nomad binary'], { ok: false, detail: /no such file/ });
  t.equal(by.virtualization?.ok, true);
  t.ok(by[`free disk ${dir}`], 'work dir disk checked');
  t.ok(by['free memory']);
});

t.test('a work dir that does not exist yet is judged by its nearest existing parent, not failed', async (t) => {
  const dir = t.testdir({ sub: {} });
  t.equal(await nearestExisting(`${dir}/sub/a/b`), `${dir}/sub`);
  t.equal(await nearestExisting(dir), dir);
  const run: RunCommand = async () => ({ code: 1, stdout: '', stderr: 'absent\n', durationMs: 1 });
  const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: `${dir}/sub/nomad-reboot-harness`, run });
  const disk = items.find((i) => i.name === `free disk ${dir}/sub/nomad-reboot-harness`);
  t.match(disk, {
    detail: new RegExp(`free on ${dir}/sub \\(${dir}/sub/nomad-reboot-harness does not exist yet; a run creates it\\)`),
  });
  t.notMatch(disk?.detail, /cannot be read/);
  t.equal(disk?.ok, true, 'the test dir has more than 3 GiB free');
  t.match(
    items.find((i) => i.name === 'libvirtd reachable'),
    { fix: /reboot-harness setup {3}\(starts virtlogd \+ libvirtd inside netns "nrh-lab"\)/ },
  );
});

t.test(
  'runDoctor shows the libvirt driver lab.libvirt_driver resolves to, with its reason; a failed choice is named',
  async (t) => {
    const run: RunCommand = async () => ({ code: 1, stdout: '', stderr: '', durationMs: 1 });
    const dir = t.testdir({});
    const reason = 'software emulation (TCG): qemu -enable-kvm -cpu host aborts with "failed to set MSR 0x10a to 0x69"';
    const choose = async () => ({ driver: 'qemu' as const, reason, source: 'cache' as const });
    const items = await runDoctor({
      deadline: deadlineIn(10_000),
      workDir: dir,
      run,
      libvirtDriver: { setting: 'auto', choose },
    });
    t.match(
      items.find((i) => i.name === 'libvirt driver'),
      { ok: true, detail: `qemu (lab.libvirt_driver: auto, decided by cache): ${reason}` },
    );
    const broken = async () => {
      throw new Error('interrupted');
    };
    const bad = await runDoctor({
      deadline: deadlineIn(10_000),
      workDir: dir,
      run,
      libvirtDriver: { setting: 'auto', choose: broken },
    });
    t.match(
      bad.find((i) => i.name === 'libvirt driver'),
      { ok: false, detail: /could not decide for auto: interrupted/ },
    );
    const none = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, run });
    t.notOk(
      none.some((i) => i.name === 'libvirt driver'),
      'not shown when no chooser is given (lab.provider virtualbox or ssh)',
    );
  },
);

t.test("renderDoctor --quiet: the failed checks' names and the verdict, nothing else", async (t) => {
  const items: DoctorItem[] = [
    { name: 'vagrant', ok: false, detail: 'vagrant not found', fix: 'reboot-harness setup' },
    { name: 'qemu', ok: true, detail: 'QEMU emulator version 7.2', fix: '' },
    { name: 'box', ok: false, detail: 'not found', fix: 'reboot-harness setup' },
  ];
  t.equal(renderDoctor(items, { quiet: true }), 'FAIL  vagrant\nFAIL  box\n2 of 3 checks failed\n');
  t.equal(renderDoctor(items.slice(1, 2), { quiet: true }), 'all 1 checks passed\n');
});
