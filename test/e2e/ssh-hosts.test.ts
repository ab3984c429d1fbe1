// e2e tier: lab.provider ssh end to end on real Nomad. This test brings up two VMs itself (vagrant-libvirt in the
// lab's network namespace), hands them over as existing hosts, and in that one bring-up runs the VM tier's assertions
// (test/vm/ssh-hosts.test.ts) and then `run bridge-exec-reboot --provider ssh` on the first build of NOMAD_BINARIES /
// NOMAD_BINARY with the verdict Nomad's history predicts (< 1.9.4: the duplicate-IP restore failure, expected; from
// 1.9.4: every check passes but what the CHANGELOG says still fails after a host reboot, changelogFailures: task-dirs
// before 2.0.5, expected with `--expect task-dirs=fail`; services skipped, the shipped job has no Nomad-native
// service); after each teardown both hosts are up with nothing of the harness left.
// Run under `flock /work/vm.lock`; skips visibly without a build or the lab.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import {
  buildsFromEnv,
  expectArgs,
  expectedLabel,
  runCli,
  verdictsOf,
  NETNS,
  SHIPPED_JOB_SKIPS,
} from '../helpers/real-nomad.js';
import { assertCleaned, assertVmTier, bringUpHosts, hostState } from '../helpers/handed-over-hosts.js';
import { checkIds } from '../helpers/check-ids.js';

t.setTimeout(90 * 60_000);
const build = buildsFromEnv()[0];
const skip = build ? vmSkipReason() : 'no Nomad build given: set NOMAD_BINARY=/path/to/nomad (or NOMAD_BINARIES)';
const REBOOT_CHECKS = checkIds('bridge-exec-reboot');
const DUPLICATE = /has been allocated to [0-9a-f-]+, duplicate allocation is not allowed/;

t.test(
  `bridge-exec-reboot on Nomad ${build?.version ?? '(none)'} against VMs handed over as existing hosts`,
  { skip: skip ?? false, timeout: 80 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    const lab = await bringUpHosts(t, NETNS);
    const server = hostState(lab, 'server');
    await t.test('the VM tier on the same hosts', (t) => assertVmTier(t, lab, dir));
    const client = hostState(lab, 'client');
    const json = join(dir, 'summary.json');
    const expect = build!.beforeTmpfsFix ? ['--expect', 'no-duplicate-ip=fail'] : expectArgs(build!, 'graceful');
    const started = performance.now();
    const r = await runCli(t, [
      'run',
      'bridge-exec-reboot',
      '--config',
      lab.config(dir),
      '--nomad-binary',
      build!.path,
      '--report-json',
      json,
      '--junit',
      join(dir, 'junit.xml'),
      '--reports-dir',
      join(dir, 'reports'),
      '--artifacts',
      'always',
      ...expect,
    ]);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    t.comment(`bridge-exec-reboot --provider ssh: exit ${r.code} in ${seconds} s`);
    t.equal(r.code, 0, `the verdicts match Nomad's history for ${build!.version}`);
    const run = JSON.parse(readFileSync(json, 'utf8')).runs?.[0];
    const v = verdictsOf(run);
    t.comment(`verdicts: ${[...v.values()].map((x) => `${x.id}=${x.label}`).join(', ')}`);
    if (build!.beforeTmpfsFix) {
      t.equal(v.get('no-duplicate-ip')?.label, 'expected failure', 'the duplicate-IP error was observed');
      t.match(v.get('no-duplicate-ip')?.evidence.join('\n') ?? '', DUPLICATE);
    } else {
      for (const id of REBOOT_CHECKS) {
        const want = expectedLabel(build!, 'graceful', id, SHIPPED_JOB_SKIPS);
        t.equal(v.get(id)?.label, want, `${id} ${want}: ${v.get(id)?.message}`);
      }
    }
    const props = run?.properties ?? {};
    t.equal(props['server.agent_address'], lab.hosts.server!.address, 'the server agent bound the handed-over address');
    t.equal(props['client.network_interface'], 'eth0', 'the client fingerprints the interface it was reached on');
    t.not(run?.properties?.['client.boot_id.before'], run?.properties?.['client.boot_id.after'], 'the client rebooted');
    assertCleaned(t, lab, 'server', server, server.bootId);
    assertCleaned(t, lab, 'client', client, run?.properties?.['client.boot_id.after']);
    await lab.destroy();
    t.same(domainsMatching(lab.runId), [], 'the handed-over VMs are destroyed');
  },
);
