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

function parseJunit(path: string) {
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(path, 'utf8'));
  const suite = xml.testsuites.testsuite;
  const props = Object.fromEntries([suite.properties?.property ?? []].flat().map((p: { name: string; value: string }) => [p.name, p.value]));
  const cases = [suite.testcase].flat() as Record<string, unknown>[];
  return { suite, props, cases };
}

// The executor logs "<suite>: run <id>" when a cell starts (lib/session/execute.ts).
const runIdOf = (stderr: string) => /\brun (r[0-9a-z]{13})\b/.exec(stderr)?.[1];

t.test('cni-ipam-reboot on real VMs: graceful reboot, persistent state refuses the re-add, tmpfs accepts it', { skip: skip ?? false, timeout: 15 * 60_000 }, async (t) => {
  const dir = t.testdir({});
  const junit = join(dir, 'junit.xml');
  const r = await runCli(t, ['run', 'cni-ipam-reboot', '--netns', NETNS, '--junit', junit, '--report-json', join(dir, 'summary.json'), '--reports-dir', join(dir, 'reports'), '--artifacts', 'always']);
  t.equal(r.code, 0, 'exit 0: every check passed');
  const { suite, props, cases } = parseJunit(junit);
  t.equal(Number(suite.failures), 0);
  t.equal(Number(suite.errors), 0);
  t.ok(props['client.boot_id.before'] && props['client.boot_id.after'], 'boot ids recorded as properties');
  t.not(props['client.boot_id.before'], props['client.boot_id.after'], 'the boot id really changed');
  const dup = cases.find((c) => String(c['name']).includes('persistent-state-duplicate'));
  t.match(JSON.stringify(dup), /duplicate allocation is not allowed/, 'the real plugin refused the re-add after the reboot');
  const runId = runIdOf(r.stderr);
  t.ok(runId, 'run id printed');
  t.same(domainsMatching(runId!), [], 'no libvirt domain of the run is left');
  t.same(volumesMatching(runId!), [], 'no libvirt volume of the run is left');
});

t.test('a two-cell matrix on real VMs: graceful and hard reset in parallel, each on its own subnets, one merged JUnit', { skip: skip ?? false, timeout: 20 * 60_000 }, async (t) => {
  const dir = t.testdir({
    'vm-matrix.yaml': ['scenario: cni-ipam-reboot', 'axes:', '  reboot: [graceful, hard]', 'parallel: 2', 'memory_budget_mb: 8192', ''].join('\n'),
  });
  const junit = join(dir, 'junit.xml');
  const r = await runCli(t, ['matrix', join(dir, 'vm-matrix.yaml'), '--netns', NETNS, '--junit', junit, '--report-json', join(dir, 'summary.json'), '--reports-dir', join(dir, 'reports')]);
  t.equal(r.code, 0, 'exit 0: both cells met their expectations');
  validateJUnit(t, junit, 'the merged JUnit');
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
  const suites = [xml.testsuites.testsuite].flat() as Record<string, unknown>[];
  t.same(suites.map((s) => s['name']), ['cni-ipam-reboot/reboot=graceful', 'cni-ipam-reboot/reboot=hard'], 'one suite per cell, named by the cell');
  const propsOf = (s: Record<string, unknown>) => Object.fromEntries([(s['properties'] as { property?: unknown })?.property ?? []].flat().map((p) => [(p as { name: string }).name, (p as { value: string }).value]));
  const props = suites.map(propsOf);
  for (const [i, kind] of (['graceful', 'hard'] as const).entries()) {
    t.equal(Number(suites[i]!['failures']), 0, `${kind}: no failure`);
    t.equal(Number(suites[i]!['errors']), 0, `${kind}: no error`);
    t.equal(props[i]!['reboot.kind'], kind, `${kind}: the cell's reboot kind was used`);
    t.not(props[i]!['client.boot_id.before'], props[i]!['client.boot_id.after'], `${kind}: the boot id really changed`);
  }
  t.not(props[0]!['lab.private_subnet'], props[1]!['lab.private_subnet'], 'the parallel cells had their own private subnets');
  t.not(props[0]!['lab.management_subnet'], props[1]!['lab.management_subnet'], 'and their own management subnets');
  const runIds = props.map((p) => p['run.id']);
  t.equal(new Set(runIds).size, 2, 'two runs');
  for (const id of runIds) {
    t.same(domainsMatching(id!), [], `no libvirt domain of ${id} left`);
    t.same(volumesMatching(id!), [], `no libvirt volume of ${id} left`);
  }
});

t.test('Ctrl-C during the reboot destroys the VM and still writes a report', { skip: skip ?? false, timeout: 15 * 60_000 }, async (t) => {
  const dir = t.testdir({});
  const junit = join(dir, 'junit.xml');
  let sent = false;
  const r = await runCli(t, ['run', 'cni-ipam-reboot', '--netns', NETNS, '--junit', junit, '--report-json', join(dir, 'summary.json'), '--reports-dir', join(dir, 'reports')], (line, child) => {
    if (!sent && /… reboot the client/.test(line)) {
      sent = true;
      setTimeout(() => child.kill('SIGINT'), 3000);
    }
  });
  t.ok(sent, 'the run reached the reboot');
  t.equal(r.code, 130, 'exit 130 (interrupted)');
  const runId = runIdOf(r.stderr);
  t.ok(runId);
  t.same(domainsMatching(runId!), [], 'no libvirt domain left after Ctrl-C');
  t.same(volumesMatching(runId!), [], 'no libvirt volume left after Ctrl-C');
  const { suite } = parseJunit(junit);
  t.ok(Number(suite.errors) >= 1, 'the report says the run was interrupted');
});
