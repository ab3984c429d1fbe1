// VM tier: the real CLI, real Vagrant + libvirt (QEMU emulation here), a real reboot of a real VM, and the real
// bridge + host-local CNI plugins inside it. Runs the harness as a user would; skips visibly without the lab.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { validateJUnit } from '../helpers/junit-schema.js';
import { runCli } from '../helpers/cli-child.js';
import { vmSkipReason, domainsMatching, volumesMatching } from '../helpers/vm-prereqs.js';

// Note: tap's per-file timeout (package.json) is far below a real VM run; this file sets its own.
t.setTimeout(45 * 60_000);

const skip = vmSkipReason();
/** Where the VM tier's libvirtd lives; the CLI creates it (or joins the namespace libvirtd already runs in). */
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';

// The graceful cell is also the plain graceful run (a single run's cold path is in test/vm/warm-lab.test.ts and
// test/vm/lab-faults.test.ts); Ctrl-C/SIGTERM in the reboot wait is test/vm/lab-faults.test.ts (and every phase through
// main() in test/integration/lab-faults-run.test.ts).
t.test(
  'a two-cell matrix on real VMs: graceful and hard reset in parallel, each on its own subnets, one merged JUnit',
  { skip: skip ?? false, timeout: 20 * 60_000 },
  async (t) => {
    const dir = t.testdir({
      'vm-matrix.yaml': [
        'scenario: cni-ipam-reboot',
        'axes:',
        '  reboot: [graceful, hard]',
        'parallel: 2',
        'memory_budget_mb: 8192',
        '',
      ].join('\n'),
    });
    const junit = join(dir, 'junit.xml');
    const r = await runCli(t, [
      'matrix',
      join(dir, 'vm-matrix.yaml'),
      '--netns',
      NETNS,
      '--junit',
      junit,
      '--report-json',
      join(dir, 'summary.json'),
      '--reports-dir',
      join(dir, 'reports'),
    ]);
    t.equal(r.code, 0, 'exit 0: both cells met their expectations');
    validateJUnit(t, junit, 'the merged JUnit');
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
    const suites = [xml.testsuites.testsuite].flat() as Record<string, unknown>[];
    t.same(
      suites.map((s) => s['name']),
      ['cni-ipam-reboot/reboot=graceful', 'cni-ipam-reboot/reboot=hard'],
      'one suite per cell, named by the cell',
    );
    const propsOf = (s: Record<string, unknown>) =>
      Object.fromEntries(
        [(s['properties'] as { property?: unknown })?.property ?? []]
          .flat()
          .map((p) => [(p as { name: string }).name, (p as { value: string }).value]),
      );
    const props = suites.map(propsOf);
    for (const [i, kind] of (['graceful', 'hard'] as const).entries()) {
      t.equal(Number(suites[i]!['failures']), 0, `${kind}: no failure`);
      t.equal(Number(suites[i]!['errors']), 0, `${kind}: no error`);
      t.equal(props[i]!['reboot.kind'], kind, `${kind}: the cell's reboot kind was used`);
      t.not(
        props[i]!['client.boot_id.before'],
        props[i]!['client.boot_id.after'],
        `${kind}: the boot id really changed`,
      );
      const dup = [suites[i]!['testcase']]
        .flat()
        .find((c) => String((c as { name?: string }).name).includes('persistent-state-duplicate'));
      t.match(
        JSON.stringify(dup),
        /duplicate allocation is not allowed/,
        `${kind}: the real plugin refused the re-add after the reboot`,
      );
    }
    t.not(
      props[0]!['lab.private_subnet'],
      props[1]!['lab.private_subnet'],
      'the parallel cells had their own private subnets',
    );
    t.not(props[0]!['lab.management_subnet'], props[1]!['lab.management_subnet'], 'and their own management subnets');
    const runIds = props.map((p) => p['run.id']);
    t.equal(new Set(runIds).size, 2, 'two runs');
    for (const id of runIds) {
      t.same(domainsMatching(id!), [], `no libvirt domain of ${id} left`);
      t.same(volumesMatching(id!), [], `no libvirt volume of ${id} left`);
    }
  },
);
