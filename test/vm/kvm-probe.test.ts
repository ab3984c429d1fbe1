// The KVM probe for real: QEMU boots the real box's kernel under KVM (no disk, no network). On this development host
// /dev/kvm is kvm_pvm, which cannot run a stock kernel: auto must pick emulation and say why. Elsewhere the test only
// requires a decided answer with its reason. The probe's VM runs under the host's VM lock (one lab at a time):
// test/helpers/vm-lock.ts.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { runKvmProbe } from '../../lib/lab/kvm/kvm-probe.js';
import { judgeKvmProbe } from '../../lib/parse/kvm-probe-console.js';
import { chooseLibvirtDriver, realAccelDeps } from '../../lib/lab/kvm/accel.js';
import { boxKernel } from '../../lib/vagrant/box-files.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { BOX } from '../helpers/vm-prereqs.js';
import { holdVmLock } from '../helpers/vm-lock.js';

// Note: a lab of another run may hold the VM lock for a while before these tests get it
t.setTimeout(45 * 60_000);

const qemu = spawnSync('qemu-system-x86_64', ['--version']).status === 0;
const files = await boxKernel(BOX, 'libvirt');
const pvm = readdirSync('/sys/module').includes('kvm_pvm');
const skip = !qemu
  ? 'qemu-system-x86_64 is not installed'
  : !existsSync('/dev/kvm')
    ? '/dev/kvm is missing (nothing to probe)'
    : 'missing' in files
      ? `${files.missing} (npx tsx vms/build-box.ts)`
      : false;

// one wait for the lock for the whole file, held until its last test ends
if (!skip) await holdVmLock(t);

t.test('the real probe on the real box kernel', { skip }, async (t) => {
  if ('missing' in files) return;
  const out = await runKvmProbe({ kernel: files.kernel, initrd: files.initrd, deadline: deadlineIn(5 * 60_000) });
  const v = judgeKvmProbe(out);
  t.comment(`probe: ${out.end} after ${Math.round(out.durationMs)} ms: ${v.reason}`);
  if (pvm) {
    t.equal(v.boots, false, 'kvm_pvm cannot boot a stock kernel');
    t.match(
      v.reason,
      /failed to set MSR 0x10a|did not reach init under KVM/,
      'one of the two failure shapes seen here',
    );
  } else {
    t.ok(v.reason.length > 0, 'a decided answer with its reason');
    if (v.boots) t.equal(out.end, 'saw-init', 'stopped as soon as the kernel reached init');
  }
});

t.test(
  'auto through the real host: decided once, then from the cache under XDG_CACHE_HOME; doctor shows it',
  { skip },
  async (t) => {
    const cache = mkdtempSync(join(tmpdir(), 'nrh-xdg-'));
    t.teardown(() => rmSync(cache, { recursive: true, force: true }));
    let probes = 0;
    const deps = {
      ...realAccelDeps({ env: { ...process.env, XDG_CACHE_HOME: cache } }),
      probe: (kernel: string, initrd: string, d: ReturnType<typeof deadlineIn>) => {
        probes++;
        return runKvmProbe({ kernel, initrd, deadline: d });
      },
    };
    const first = await chooseLibvirtDriver('auto', BOX, deadlineIn(5 * 60_000), deps);
    t.equal(first.source, 'probe');
    if (pvm) t.match(first, { driver: 'qemu', reason: /^software emulation \(TCG\): / });
    const file = join(cache, 'nomad-reboot-harness', 'kvm-probe.json');
    t.ok(existsSync(file), 'cached under XDG_CACHE_HOME');
    t.match(readFileSync(file, 'utf8'), new RegExp(`\\|${BOX.replace('/', '\\/')}\\|`));
    const second = await chooseLibvirtDriver('auto', BOX, deadlineIn(10_000), deps);
    t.match(second, { driver: first.driver, source: 'cache' });
    t.equal(probes, 1, 'probed once');

    // doctor, through the real CLI, reads the same cache. Note: doctor exits 3 when some other prerequisite is missing
    // (a work dir); its JSON is what counts here
    const json = spawnSync(process.execPath, [resolve('bin/reboot-harness.js'), 'doctor', '--json', '--netns', ''], {
      env: { ...process.env, XDG_CACHE_HOME: cache },
      encoding: 'utf8',
      timeout: 5 * 60_000,
    }).stdout;
    const report = JSON.parse(json) as { checks: { name: string; detail: string }[] };
    const item = report.checks.find((i) => i.name === 'libvirt driver');
    t.match(item?.detail, new RegExp(`^${first.driver} \\(lab\\.libvirt_driver: auto, decided by cache\\)`));
  },
);
