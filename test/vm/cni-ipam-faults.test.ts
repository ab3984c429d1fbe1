// VM tier (issue 15): the fault kinds that reboot the host without asking it, on real VMs (Vagrant + libvirt, QEMU
// emulation here): a kernel panic through sysrq (kernel.panic=5: the guest reboots itself) and a power-off held for
// reboot.off_for then a power-on (virsh destroy + virsh start), as a two-cell matrix on cni-ipam-reboot.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { validateJUnit } from '../helpers/junit-schema.js';
import { runCli } from '../helpers/cli-child.js';
import { vmSkipReason, domainsMatching, volumesMatching } from '../helpers/vm-prereqs.js';

t.setTimeout(45 * 60_000);
const skip = vmSkipReason();
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';
const OFF_FOR_S = 20;

t.test(
  'cni-ipam-reboot with --reboot panic and power-off on real VMs: both reboot, the state checks hold',
  { skip: skip ?? false, timeout: 25 * 60_000 },
  async (t) => {
    const dir = t.testdir({
      'faults.yaml': [
        'scenario: cni-ipam-reboot',
        'axes:',
        '  reboot: [panic, power-off]',
        'parallel: 2',
        'memory_budget_mb: 8192',
        'defaults:',
        `  reboot: { off_for: ${OFF_FOR_S}s }`,
        '  reports: { artifacts: always }',
        '',
      ].join('\n'),
    });
    const junit = join(dir, 'junit.xml');
    const reports = join(dir, 'reports');
    const r = await runCli(t, [
      'matrix',
      join(dir, 'faults.yaml'),
      '--netns',
      NETNS,
      '--junit',
      junit,
      '--report-json',
      join(dir, 'summary.json'),
      '--reports-dir',
      reports,
    ]);
    t.equal(r.code, 0, 'exit 0: both cells met their expectations');
    validateJUnit(t, junit, 'the merged JUnit');
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
    const suites = [xml.testsuites.testsuite].flat() as Record<string, unknown>[];
    t.same(
      suites.map((s) => s['name']),
      ['cni-ipam-reboot/reboot=panic', 'cni-ipam-reboot/reboot=power-off'],
    );
    const propsOf = (s: Record<string, unknown>) =>
      Object.fromEntries(
        [(s['properties'] as { property?: unknown })?.property ?? []]
          .flat()
          .map((p) => [(p as { name: string }).name, (p as { value: string }).value]),
      );
    const [panic, off] = suites.map(propsOf) as [Record<string, string>, Record<string, string>];
    for (const [i, p] of [panic, off].entries()) {
      t.equal(Number(suites[i]!['failures']), 0, `${p['reboot.kind']}: no failure`);
      t.equal(Number(suites[i]!['errors']), 0, `${p['reboot.kind']}: no error`);
      t.not(p['client.boot_id.before'], p['client.boot_id.after'], `${p['reboot.kind']}: the boot id really changed`);
      t.match(p['reboot.expected'], /./, 'what Nomad is expected to do is a property');
    }
    t.equal(panic['reboot.kind'], 'panic');
    t.equal(off['reboot.kind'], 'power-off');
    t.ok(
      Number(off['reboot.seconds']) >= OFF_FOR_S,
      `power-off: back after ${off['reboot.seconds']} s, not before the ${OFF_FOR_S} s off`,
    );
    // the guest's own account of the panic, from its serial console (kept as an artifact)
    const serial = readFileSync(join(reports, panic['run.id']!, `${panic['run.id']}-client-serial.log`), 'utf8');
    t.match(serial, /Kernel panic - not syncing: sysrq triggered crash/, 'the serial console shows the sysrq panic');
    const html = readFileSync(join(reports, off['run.id']!, 'report.html'), 'utf8');
    t.match(html, /powered off/, 'power-off on the timeline');
    t.match(html, /powered on/);
    t.match(
      readFileSync(join(reports, panic['run.id']!, 'report.html'), 'utf8'),
      /kernel panic \(sysrq c\)/,
      'the panic on the timeline',
    );
    for (const id of [panic['run.id'], off['run.id']]) {
      t.same(domainsMatching(id!), [], `no libvirt domain of ${id} left`);
      t.same(volumesMatching(id!), [], `no libvirt volume of ${id} left`);
    }
  },
);
