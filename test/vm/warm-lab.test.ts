// VM tier, warm reruns (issue 14 part 3) and a short repeat (issue 15 part 4): cni-ipam-reboot on real VMs in a work
// dir of its own. The first run is cold and leaves the key's warm lab (its domain shut off, with a snapshot); then
// `--repeat 2` reverts to it for each attempt, says so in each report and judges the attempts together;
// `destroy --warm` removes it. Real Vagrant + libvirt + virsh; skips visibly without the lab.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli-child.js';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';

t.setTimeout(40 * 60_000);
const skip = vmSkipReason();
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';
/** The test helper runs cold by default; these runs are warm (the harness's own default). */
const WARM = { HARNESS_WARM: '1' };

const virsh = (...args: string[]) =>
  execFileSync('virsh', ['-c', 'qemu:///system', ...args], { encoding: 'utf8', timeout: 30_000 }).trim();
const propsOf = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { runs: { properties: Record<string, string>; durationMs: number }[] })
    .runs[0]!;

t.test(
  'cold run leaves a warm lab; the rerun reverts to it; destroy --warm removes it',
  { skip: skip ?? false, timeout: 35 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    // Note: outside the test dir, which tap removes before later teardowns run (a warm lab would outlive a failed test)
    const work = mkdtempSync(join(tmpdir(), 'nrh-vm-warm-'));
    const common = ['--netns', NETNS, '--work-dir', work, '--reports-dir', join(dir, 'reports')];
    // Note: whatever happens, no warm lab of this test outlives it
    t.teardown(async () => {
      if (existsSync(work) && readdirSync(work).some((f) => f.startsWith('warm-')))
        await runCli(t, ['destroy', '--warm', ...common.slice(0, 4)]);
      rmSync(work, { recursive: true, force: true });
    });
    const first = await runCli(
      t,
      ['run', 'cni-ipam-reboot', ...common, '--report-json', join(dir, 'cold.json')],
      undefined,
      WARM,
    );
    t.equal(first.code, 0, 'the cold run passed');
    const cold = propsOf(join(dir, 'cold.json'));
    const key = cold.properties['lab.snapshot.key'];
    t.match(key, /^[0-9a-f]{16}$/, 'the report names the snapshot key');
    t.match(cold.properties['lab.warm'], /^no \(first run of this key/, 'the first run was cold');
    t.match(cold.properties['lab.snapshot.created'], /^yes/, 'and took the snapshot');
    t.match(first.stdout + first.stderr, `[cold lab; snapshot ${key} taken for the next run]`, 'the console says so');
    const domain = `warm-${key}-client`;
    t.same(domainsMatching(`warm-${key}`), [domain], 'the warm lab has one domain (cni-ipam-reboot: the client)');
    t.equal(virsh('domstate', domain), 'shut off', 'parked: it burns no CPU between runs');
    t.match(virsh('snapshot-list', domain, '--name'), /^nrh-warm$/m, 'with its snapshot');

    // The rerun is `--repeat 2` (issue 15's short repeat in the VM tier): each attempt reverts to the snapshot.
    const second = await runCli(
      t,
      ['run', 'cni-ipam-reboot', ...common, '--repeat', '2', '--report-json', join(dir, 'warm.json')],
      undefined,
      WARM,
    );
    t.equal(second.code, 0, 'both warm attempts passed');
    const attempts = (
      JSON.parse(readFileSync(join(dir, 'warm.json'), 'utf8')) as {
        runs: { runId: string; properties: Record<string, string>; durationMs: number }[];
      }
    ).runs;
    t.equal(attempts.length, 2, 'two attempts, each its own run');
    t.match(
      second.stdout + second.stderr,
      /cni-ipam-reboot: passed 2 of 2 attempts\n {2}attempt 1: r\w+ passed\n {2}attempt 2: r\w+ passed/,
      'the attempts judged together: no flake',
    );
    for (const [i, warm] of attempts.entries()) {
      const at = `attempt ${i + 1}`;
      t.equal(warm.properties['lab.warm'], 'yes', `${at} was warm`);
      t.equal(warm.properties['lab.snapshot.key'], key, `${at}: same key`);
      t.match(warm.properties['lab.snapshot.age_s'], /^\d+$/, `${at}: the snapshot age is reported`);
      t.not(
        warm.properties['client.boot_id.before'],
        warm.properties['client.boot_id.after'],
        `${at}: the client really rebooted`,
      );
      t.ok(warm.durationMs < cold.durationMs, `${at}: warm ${warm.durationMs} ms < cold ${cold.durationMs} ms`);
    }
    // Reverting restores the guest's memory: both attempts start in the snapshot's boot, not in the boot attempt 1 left.
    t.equal(
      attempts[1]!.properties['client.boot_id.before'],
      attempts[0]!.properties['client.boot_id.before'],
      'attempt 2 started from the snapshot, not from where attempt 1 ended',
    );
    t.not(
      attempts[1]!.properties['client.boot_id.before'],
      attempts[0]!.properties['client.boot_id.after'],
      "so not in attempt 1's new boot",
    );
    t.match(second.stdout + second.stderr, `[warm lab ${key}, snapshot`, 'the console says warm');
    t.equal(virsh('domstate', domain), 'shut off', 'parked again after the rerun');

    const gone = await runCli(t, ['destroy', '--warm', ...common.slice(0, 4)]);
    t.equal(gone.code, 0, 'destroy --warm');
    t.match(gone.stderr, `destroyed lab warm-${key}`);
    t.same(domainsMatching(`warm-${key}`), [], 'no domain of the warm lab is left');
    t.notOk(existsSync(join(work, `warm-${key}`)), 'its directory is gone');
  },
);
