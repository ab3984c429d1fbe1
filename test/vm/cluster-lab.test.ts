// VM tier, clusters: cni-ipam-reboot on a lab of two clients (--clients 2; the scenario brings up clients only). Both
// client VMs come up together; the first client really reboots and the real plugins judge it, while the second keeps
// its boot id. The same scenario on one client (a pair's client) first, for the bring-up time to compare with.
// Real Vagrant + libvirt; skips visibly without the lab.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli-child.js';
import { vmSkipReason, domainsMatching, volumesMatching } from '../helpers/vm-prereqs.js';

t.setTimeout(45 * 60_000);
const skip = vmSkipReason();
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';
const BRING_UP = 'bring up the client VM';

interface RunJson {
  runs: {
    runId: string;
    outcome: string;
    properties: Record<string, string>;
    steps: { name: string; status: string; durationMs: number }[];
    verdicts: { id: string; met: boolean }[];
    artifacts: { name: string }[];
  }[];
}
const runOf = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as RunJson).runs[0]!;

t.test(
  'cni-ipam-reboot with --clients 2: the first client reboots, the second is untouched; bring-up vs one client',
  { skip: skip ?? false, timeout: 40 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    const common = ['--netns', NETNS, '--fresh', '--reports-dir', join(dir, 'reports'), '--artifacts', 'always'];
    const one = await runCli(t, ['run', 'cni-ipam-reboot', ...common, '--report-json', join(dir, 'one.json')]);
    t.equal(one.code, 0, 'one client: exit 0');
    const two = await runCli(t, [
      'run',
      'cni-ipam-reboot',
      '--clients',
      '2',
      ...common,
      '--report-json',
      join(dir, 'two.json'),
    ]);
    t.equal(two.code, 0, 'two clients: exit 0, every check met its expectation');
    const a = runOf(join(dir, 'one.json'));
    const b = runOf(join(dir, 'two.json'));
    const p = b.properties;
    t.equal(b.outcome, 'passed');
    t.ok(
      b.verdicts.length >= 3 && b.verdicts.every((c) => c.met),
      'every check met (the real plugins judged client-1)',
    );
    t.ok(
      p['client-1.boot_id.before'] && p['client-1.boot_id.after'],
      'the rebooted client reported its boot ids, named by its slot',
    );
    t.not(p['client-1.boot_id.before'], p['client-1.boot_id.after'], 'client-1 really rebooted');
    t.ok(p['client-2.boot_id.before'], 'the second client was read before the reboot');
    t.equal(p['client-2.boot_id.after'], p['client-2.boot_id.before'], 'client-2 kept its boot id: untouched');
    t.notOk('client.boot_id.before' in p, "no fact under a pair's name in a cluster");
    t.same(
      [p['lab.topology'], p['fault.1.target']],
      ['0+2', "client-1 (the scenario's client)"],
      'the topology it brought up and the target, as properties',
    );
    const names = b.artifacts.map((x) => x.name);
    for (const slot of ['client-1', 'client-2'])
      t.ok(
        names.some((n) => n.startsWith(`${slot}-`) && n.endsWith('boots.txt')),
        `host evidence of ${slot}, named by its slot`,
      );
    t.ok(
      names.some((n) => /-client-2-serial\.log$/.test(n)),
      'the serial console of client-2',
    );
    const upOne = a.steps.find((s) => s.name === BRING_UP)!.durationMs;
    const upTwo = b.steps.find((s) => s.name === BRING_UP)!.durationMs;
    t.comment(`bring-up: 1 client ${(upOne / 1000).toFixed(1)} s, 2 clients ${(upTwo / 1000).toFixed(1)} s`);
    t.ok(upTwo < 2 * upOne, `two VMs came up together, not one after the other (${upTwo} ms < 2 x ${upOne} ms)`);
    for (const id of [a.runId, b.runId]) {
      t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
      t.same(volumesMatching(id), [], `no libvirt volume of ${id} left`);
    }
  },
);
