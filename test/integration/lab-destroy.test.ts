// `destroy <run-id>` for a lab kept by --keep: the lab goes, and so does each VM's serial log libvirt left behind.
// Vagrant is the fake one on PATH (error-path stand-in, test/fixtures/fake-bin/vagrant); the files are real.
import t from 'tap';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { destroyLabs } from '../../lib/cli/destroy.js';
import { findLabs, renderLabs } from '../../lib/cli/labs.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import type { LogEvent } from '../../lib/log/events.js';
import { labSpecJson } from '../helpers/fabricated-lab.js';

t.test('destroy removes the kept lab and its serial logs, and leaves other runs alone', async (t) => {
  const root = t.testdir({ work: {}, serial: {}, fake: {} });
  const spec = {
    runId: 'r1',
    box: 'b',
    provider: 'libvirt',
    cpus: 1,
    memoryMb: 768,
    bootTimeoutS: 60,
    machines: [
      { name: 'r1-server', role: 'server', privateIp: '10.199.0.10' },
      { name: 'r1-client', role: 'client', privateIp: '10.199.0.11' },
    ],
    privateNetwork: { name: 'p', subnet: '10.199.0.0/24' },
    libvirt: {
      driver: 'qemu',
      tbCacheMb: 256,
      cpuModel: 'Nehalem',
      managementNetwork: { name: 'm', address: '10.198.0.0/24' },
      serialLogDir: join(root, 'serial'),
    },
  };
  mkdirSync(join(root, 'work', 'r1'));
  writeFileSync(join(root, 'work', 'r1', 'lab-spec.json'), JSON.stringify(spec));
  for (const f of ['r1-server-serial.log', 'r1-client-serial.log', 'r2-client-serial.log'])
    writeFileSync(join(root, 'serial', f), 'boot\n');
  const events: LogEvent[] = [];
  const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, workDir: join(root, 'work') } };
  const fakeBin = fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url));
  const env = {
    PATH: `${fakeBin}:${process.env['PATH']}`,
    FAKE_VAGRANT_MODE: 'dir',
    FAKE_VAGRANT_DIR: join(root, 'fake'),
  };
  const code = await destroyLabs(config, ['r1'], false, (e) => void events.push(e), {
    vagrant: { env, lockDir: root },
  });
  t.equal(code, 0);
  t.notOk(existsSync(join(root, 'work', 'r1')), 'the run directory is gone');
  t.notOk(existsSync(join(root, 'serial', 'r1-server-serial.log')), 'server serial log removed');
  t.notOk(existsSync(join(root, 'serial', 'r1-client-serial.log')), 'client serial log removed');
  t.ok(existsSync(join(root, 'serial', 'r2-client-serial.log')), "another run's serial log stays");
  t.ok(
    events.some((e) => e.kind === 'info' && e.message === 'destroyed lab r1 (r1-server, r1-client)'),
    'says so',
  );
});

t.test('a lab whose destroy failed is listed as left, with why, not as kept (N25)', async (t) => {
  const root = t.testdir({
    work: { r3: {}, r4: {} },
    fake: { 'destroy.out': 'shim: vagrant refused\n', 'destroy.rc': '97\n' },
  });
  for (const id of ['r3', 'r4']) writeFileSync(join(root, 'work', id, 'lab-spec.json'), labSpecJson(id));
  // virtualbox: no orphan domains to look for, so nothing but the directories is asked
  const config = {
    ...DEFAULTS,
    lab: { ...DEFAULTS.lab, provider: 'virtualbox' as const, workDir: join(root, 'work') },
  };
  const env = {
    PATH: `${fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url))}:${process.env['PATH']}`,
    FAKE_VAGRANT_MODE: 'dir',
    FAKE_VAGRANT_DIR: join(root, 'fake'),
  };
  const code = await destroyLabs(config, ['r3'], false, () => {}, { vagrant: { env, lockDir: root } });
  t.equal(code, 3, 'the destroy failed');
  t.match(readFileSync(join(root, 'work', 'r3', 'teardown-failed.txt'), 'utf8'), /97/, 'the reason is left beside it');
  const { labs } = await findLabs(config);
  t.same(
    labs.map((l) => [l.id, l.kind]),
    [
      ['r3', 'left'],
      ['r4', 'kept'],
    ],
  );
  t.match(
    renderLabs(labs, config.lab.workDir),
    /\nr3 +left .*\nr4 +kept [\s\S]*left: its teardown failed \(teardown-failed\.txt in its DIR says why\)/,
  );
});

t.test('destroy --host leaves the lab host running while a VM still runs under its libvirtd', async (t) => {
  const root = t.testdir({
    work: {},
    qemu: { 'rx-client.pid': `${process.pid}\n`, 'gone-server.pid': '999999999\n', 'driver.pid': `${process.pid}\n` },
    // a state file with nothing the harness started: stopping it is a no-op, so no test can stop a real lab host
    'lab-host.json': JSON.stringify({ netns: 'nrh-test', createdNetns: false, daemons: {}, blackholes: [] }),
  });
  const events: LogEvent[] = [];
  const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, workDir: join(root, 'work') } };
  const o = { stopHost: true, qemuRunDir: join(root, 'qemu'), hostStateFile: join(root, 'lab-host.json') };
  const err = await destroyLabs(config, [], false, (e) => void events.push(e), o).catch((e: unknown) => e);
  t.match(err, {
    exitCode: 2,
    message: /--host: the lab host was not stopped: 1 VM still run under its libvirtd \(rx-client\)/,
    hint: /destroy their labs first/,
  });
  t.notOk(
    events.some((e) => /lab host stopped|nothing the harness started/.test(String('message' in e ? e.message : ''))),
    'stopLabHost never ran',
  );
  // the VM gone (its pid file names a dead process): the host is stopped as asked
  writeFileSync(join(root, 'qemu', 'rx-client.pid'), '999999998\n');
  t.equal(await destroyLabs(config, [], false, (e) => void events.push(e), o), 0);
  t.ok(
    events.some((e) =>
      /lab host: nothing the harness started is running/.test(String('message' in e ? e.message : '')),
    ),
  );
});

t.test(
  'a libvirt lab whose spec has no libvirt part is kept and named, not removed then failed on (Q95)',
  async (t) => {
    const root = t.testdir({ work: { nolibvirt: {} }, fake: {} });
    const spec = {
      runId: 'nolibvirt',
      box: 'b',
      provider: 'libvirt',
      cpus: 1,
      memoryMb: 768,
      machines: [{ name: 'nolibvirt-client', role: 'client', privateIp: '10.199.0.11' }],
      privateNetwork: { name: 'p', subnet: '10.199.0.0/24' },
    };
    writeFileSync(join(root, 'work', 'nolibvirt', 'lab-spec.json'), JSON.stringify(spec));
    const events: LogEvent[] = [];
    const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, workDir: join(root, 'work') } };
    const fakeBin = fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url));
    const env = {
      PATH: `${fakeBin}:${process.env['PATH']}`,
      FAKE_VAGRANT_MODE: 'dir',
      FAKE_VAGRANT_DIR: join(root, 'fake'),
    };
    const code = await destroyLabs(config, ['nolibvirt'], false, (e) => void events.push(e), {
      vagrant: { env, lockDir: root },
    });
    t.equal(code, 3);
    t.ok(existsSync(join(root, 'work', 'nolibvirt')), 'the folder is kept');
    const said = events.map((e) => ('message' in e ? String(e.message) : '')).join('\n');
    t.match(
      said,
      /could not destroy lab nolibvirt .*cannot be read: it is no lab spec of a libvirt lab \(no libvirt part\); kept/,
    );
    t.notMatch(said, /Cannot read properties of undefined/);
  },
);
