// The real scenario env (lib/session/real-env.ts) up to `vagrant up`, with a FAKE `vagrant` on PATH that refuses to bring
// anything up (no VM is made): the libvirt driver chosen for lab.libvirt_driver is what the lab spec asks libvirt
// for, and the choice and its reason are run properties. Nothing is created: the test stops before `vagrant up` runs.
import t from 'tap';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRealEnv } from '../../lib/session/real-env.js';
import type { DriverChoice, DriverSetting } from '../../lib/lab/kvm/accel.js';
import { RunContext } from '../../lib/run/context.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { DEFAULTS, type HarnessConfig } from '../../lib/config/schema.js';
import { LAB_SPEC_FILE } from '../../lib/model/lab-spec.js';
import { rejection } from '../helpers/rejection.js';

const root = t.testdir({ bin: {}, work: {} });
writeFileSync(path.join(root, 'bin', 'vagrant'), '#!/bin/sh\necho "fake vagrant: $*" >&2\nexit 1\n');
chmodSync(path.join(root, 'bin', 'vagrant'), 0o755);
process.env['PATH'] = `${path.join(root, 'bin')}:${process.env['PATH']}`;

async function upWith(setting: DriverSetting, choice: DriverChoice | undefined) {
  const config: HarnessConfig = structuredClone(DEFAULTS);
  config.lab.libvirtDriver = setting;
  config.lab.workDir = path.join(root, 'work');
  // cold: the run's own Vagrant dir (a warm lab lives in warm-<key>; test/integration/warm-lab.test.ts)
  config.lab.warm = false;
  const runId = `rt${Math.random().toString(36).slice(2, 8)}`;
  const asked: string[] = [];
  const choose =
    choice &&
    (async (s: DriverSetting, box: string) => {
      asked.push(`${s} ${box}`);
      return choice;
    });
  const env = createRealEnv(config, runId, () => undefined, choose);
  const ctx = new RunContext({ runId, scenario: 'x', logger: () => undefined, deadline: deadlineIn(60_000) });
  // Note: `vagrant up` waits for the host's provider lock (another run may hold it); 3 s is enough to write the spec
  const err = await rejection(env.upLab(ctx, deadlineIn(3000)));
  const spec = JSON.parse(readFileSync(path.join(root, 'work', runId, LAB_SPEC_FILE), 'utf8')) as {
    libvirt: { driver: string };
  };
  return { err, spec, props: ctx.properties, asked };
}

t.test('auto: the chooser decides, the spec asks libvirt for it, the reason is a property', async (t) => {
  const reason = 'software emulation (TCG): qemu -enable-kvm -cpu host aborts with "failed to set MSR 0x10a to 0x69"';
  const r = await upWith('auto', { driver: 'qemu', reason, source: 'probe' });
  t.match(
    String(r.err),
    /fake vagrant: up|nomad-reboot-harness-vagrant-libvirt\.lock/,
    'stopped at vagrant up: no VM made',
  );
  t.same(r.asked, [`auto ${DEFAULTS.lab.box}`]);
  t.equal(r.spec.libvirt.driver, 'qemu');
  t.match(r.props, {
    'lab.libvirt_driver': 'qemu',
    'lab.libvirt_driver.setting': 'auto',
    'lab.libvirt_driver.reason': reason,
  });
  const kvm = await upWith('auto', {
    driver: 'kvm',
    reason: 'KVM: KVM boots the box kernel to init in 2 s',
    source: 'cache',
  });
  t.equal(kvm.spec.libvirt.driver, 'kvm');
  t.equal(kvm.props['lab.libvirt_driver'], 'kvm');
});

t.test('without a chooser: kvm only when set, emulation otherwise', async (t) => {
  t.equal((await upWith('kvm', undefined)).spec.libvirt.driver, 'kvm');
  const auto = await upWith('auto', undefined);
  t.equal(auto.spec.libvirt.driver, 'qemu');
  t.match(auto.props['lab.libvirt_driver.reason'], /no probe/);
});
