import t from 'tap';
import { readFileSync } from 'node:fs';
import { doctorNomadSpec, nearestExisting, runDoctor, type DoctorItem } from '../../lib/cli/doctor.js';
import { detectAccel, memAvailableBytes } from '../../lib/cli/doctor-host.js';
import { renderDoctor } from '../../lib/cli/doctor-render.js';
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
  t.match(by.vagrant, { ok: false, detail: 'vagrant not found', fix: /setup/ });
  t.match(by['vagrant-libvirt plugin'], { ok: false, detail: 'not checked: vagrant did not answer' });
  t.match(by['libvirtd reachable'], {
    ok: false,
    detail: /failed to connect/,
    fix: /ip netns exec nrh-lab libvirtd -d/,
  });
  t.match(by.box, { ok: false, detail: 'not checked: vagrant did not answer', fix: 'fix vagrant first' });
  t.match(by['nomad binary'], { ok: false, detail: /no such file/ });
  t.equal(by.virtualization?.ok, true);
  t.ok(by[`free disk ${dir}`], 'work dir disk checked');
  t.ok(by['free memory']);
});

t.test('a vagrant that runs and fails is not "not found"; what only it could tell is "not checked"', async (t) => {
  const run: RunCommand = async (file) =>
    file === 'vagrant'
      ? { code: 1, stdout: '', stderr: 'refused\n', durationMs: 1 }
      : { code: 0, stdout: '', stderr: '', durationMs: 1 };
  const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: t.testdir({}), run });
  const by = Object.fromEntries(items.map((i) => [i.name, i]));
  t.match(by.vagrant, { ok: false, detail: 'vagrant --version failed (exit 1: refused)', fix: /vagrant --version/ });
  t.notMatch(by.vagrant?.detail, /not found/);
  t.match(by['vagrant-libvirt plugin'], { ok: false, detail: /^not checked/ });
  t.match(by.box, { ok: false, detail: /^not checked/ });
  t.notMatch(by.box?.detail, /not found in/, 'no claim about a box list it never read');
});

t.test('--netns "": the fixes name the host network, not an empty namespace; --memory sets the need', async (t) => {
  const run: RunCommand = async () => ({ code: 1, stdout: '', stderr: 'absent\n', durationMs: 1 });
  const items = await runDoctor({
    deadline: deadlineIn(10_000),
    workDir: t.testdir({}),
    run,
    netns: '',
    memoryMb: 4096,
    // no libvirtd: this host's own (if any) is not what the namespace line is judged on here
    libvirtdPidFile: '/nonexistent/libvirtd.pid',
  });
  const by = Object.fromEntries(items.map((i) => [i.name, i]));
  t.match(by['libvirtd reachable']?.fix, /virtlogd -d && libvirtd -d/);
  t.notMatch(by['libvirtd reachable']?.fix, /ip netns (add|exec) {2}/, 'no "ip netns add  && …"');
  t.match(by['network namespace']?.detail, /the lab needs it in the host namespace \(lab\.netns\)/);
  t.match(by['free memory']?.detail, /\(need 8\.0 GiB: 2 VMs of 4096 MiB\)/);
  const small = await runDoctor({ deadline: deadlineIn(10_000), workDir: t.testdir({}), run, memoryMb: 512 });
  t.match(small.find((i) => i.name === 'free memory')?.detail, /\(need 2\.0 GiB\)$/, 'never below the floor');
});

t.test('doctor takes --nomad as a run does: a path, a release (cached or not yet), a source tree', async (t) => {
  const dir = t.testdir({ tree: {}, nomad: 'x' });
  const o = { field: '--nomad', cwd: dir, home: dir, cacheRoot: `${dir}/cache`, releasesUrl: 'https://r.example' };
  t.same(await doctorNomadSpec('./nomad', o), { path: `${dir}/nomad` });
  t.match(await doctorNomadSpec('1.9.7', o), {
    item: {
      name: 'nomad build',
      ok: true,
      detail: /^1\.9\.7: release 1\.9\.7, not in the cache yet: the first run downloads it from https:\/\/r\.example/,
    },
  });
  t.notMatch(JSON.stringify(await doctorNomadSpec('1.9.7', o)), /cannot open|no such file/);
  t.match(await doctorNomadSpec('git:tree@v1.9.7', o), {
    item: { ok: true, detail: /source tree .*tree at v1\.9\.7/ },
  });
  t.match(await doctorNomadSpec('git:nowhere', o), { item: { ok: false, detail: /nowhere is not a directory/ } });
  t.match(await doctorNomadSpec('1.9', o), { item: { ok: false, detail: /looks like a release version/ } });
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

t.test('doctor: an ip that is missing or fails is no namespace name, in the detail or the fix (Q58)', async (t) => {
  const dir = t.testdir({ 'libvirtd.pid': `${process.pid}\n` });
  for (const ip of ['missing', 'fails'] as const) {
    const run: RunCommand = async (file) => {
      if (file === 'ip') {
        if (ip === 'missing') throw new Error('command was killed: ip netns identify\n    spawn ip ENOENT');
        return { code: 1, stdout: '', stderr: 'RTNETLINK answers: Operation not permitted\n', durationMs: 1 };
      }
      return { code: 0, stdout: '', stderr: '', durationMs: 1 };
    };
    const items = await runDoctor({
      deadline: deadlineIn(10_000),
      workDir: dir,
      run,
      libvirtdPidFile: `${dir}/libvirtd.pid`,
    });
    const ns = items.find((i) => i.name === 'network namespace');
    t.match(ns, { ok: false, detail: `could not tell which netns libvirtd (pid ${process.pid}) runs in: ` }, ip);
    t.match(
      ns?.detail,
      ip === 'missing'
        ? /: ip is not installed \(not found on PATH\)$/
        : /: RTNETLINK answers: Operation not permitted$/,
    );
    // an ip that is there and failed (Operation not permitted) is no missing iproute2 (Q313)
    t.match(ns?.fix, ip === 'missing' ? /install iproute2/ : /^run ip netns identify \d+ and fix what it says/);
    t.notMatch(`${ns?.detail} ${ns?.fix}`, /--netns|runs in netns/, 'no namespace made of an error message');
  }
});

t.test(
  'doctor: a libvirtd in another netns than --netns offers that netns first, before stopping it (Q111)',
  async (t) => {
    const dir = t.testdir({ 'libvirtd.pid': `${process.pid}\n` });
    const run: RunCommand = async (file) =>
      file === 'ip'
        ? { code: 0, stdout: 'nrh-lab\n', stderr: '', durationMs: 1 }
        : { code: 0, stdout: '', stderr: '', durationMs: 1 };
    const items = await runDoctor({
      deadline: deadlineIn(10_000),
      workDir: dir,
      run,
      netns: 'nrh-typo',
      libvirtdPidFile: `${dir}/libvirtd.pid`,
    });
    const ns = items.find((i) => i.name === 'network namespace');
    t.equal(ns?.ok, false);
    t.match(
      ns?.fix,
      /^use --netns nrh-lab \(where that libvirtd runs\); or, to put the lab in netns nrh-typo: stop that libvirtd \(reboot-harness destroy --host/,
    );
  },
);

t.test('a tool that is not on PATH is said so, not as the indented spawn error (Q72)', async (t) => {
  const run: RunCommand = async (file, args) => {
    throw new Error(`command was killed: ${file} ${args.join(' ')}\n    spawn ${file} ENOENT`);
  };
  const items = await runDoctor({
    deadline: deadlineIn(10_000),
    workDir: t.testdir({}),
    run,
    libvirtdPidFile: '/nonexistent/libvirtd.pid',
  });
  const by = Object.fromEntries(items.map((i) => [i.name, i]));
  t.equal(by['libvirtd reachable']?.detail, 'virsh is not installed (not found on PATH)');
  t.notMatch(JSON.stringify(items), /\\n {4}spawn/, 'no indented spawn line anywhere');
});

t.test(
  'doctor: a virsh that fails without a word is said with its exit code, not an empty detail (Q313)',
  async (t) => {
    const dir = t.testdir({});
    const run: RunCommand = async (file) =>
      file === 'virsh'
        ? { code: 1, stdout: '', stderr: '', durationMs: 1 }
        : { code: 0, stdout: '', stderr: '', durationMs: 1 };
    const items = await runDoctor({
      deadline: deadlineIn(10_000),
      workDir: dir,
      run,
      libvirtdPidFile: `${dir}/none.pid`,
    });
    const lv = items.find((i) => i.name === 'libvirtd reachable');
    t.match(lv, { ok: false, detail: 'virsh -c qemu:///system version exited 1' });
  },
);
