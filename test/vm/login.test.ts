// VM tier: into a kept lab. cni-ipam-reboot (one client VM, no Nomad build needed) runs with --keep; `list-labs`
// lists its lab as kept, `login <id> --command 'uname -r'` answers with the guest's kernel from inside the lab
// namespace, then `destroy <id>` removes it. Real Vagrant + libvirt; skips visibly without the lab.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli-child.js';
import { domainsMatching, vmSkipReason } from '../helpers/vm-prereqs.js';

t.setTimeout(40 * 60_000);
const skip = vmSkipReason();
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';

t.test(
  'a lab kept by --keep: list-labs, login --command, destroy',
  { skip: skip ?? false, timeout: 35 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    const work = join(dir, 'work');
    const common = ['--netns', NETNS, '--work-dir', work];
    const ran = await runCli(t, [
      'run',
      'cni-ipam-reboot',
      '--keep',
      '--fresh',
      ...common,
      '--reports-dir',
      join(dir, 'reports'),
      '--report-json',
      join(dir, 'run.json'),
    ]);
    const runId = (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { runs: { runId: string }[] }).runs[0]!
      .runId;
    // Note: whatever happens below, the kept lab goes with the test.
    t.teardown(async () => {
      if (domainsMatching(runId).length) await runCli(t, ['destroy', runId, ...common]);
    });
    t.equal(ran.code, 0, 'the run passed');
    t.match(ran.stderr, new RegExp(`reboot-harness login ${runId} \\[client\\]`), 'the kept lines say how to log in');
    t.ok(domainsMatching(runId).length > 0, 'its VM is still defined');

    const listed = await runCli(t, ['list-labs', '--json', ...common]);
    t.equal(listed.code, 0, listed.stderr);
    const labs = (JSON.parse(listed.stdout) as { labs: { id: string; kind: string; machines: string[] }[] }).labs;
    t.match(
      labs.find((l) => l.id === runId),
      { kind: 'kept', machines: ['client'] },
      'list-labs: the run lab, kept',
    );

    const login = await runCli(t, ['login', runId, '--command', 'uname -r', ...common]);
    t.equal(login.code, 0, login.stderr);
    t.match(login.stdout, /^\d+\.\d+\.\d+-[\w.+-]+\n$/, `the guest's kernel release, alone on stdout: ${login.stdout}`);
    t.match(
      login.stderr,
      new RegExp(`login: client \\(${runId}-client\\) of lab ${runId}: ip netns exec ${NETNS} ssh -F`),
    );
    const unknown = await runCli(t, ['login', 'rnothere00000', '--command', 'true', ...common]);
    t.equal(unknown.code, 2);
    t.match(unknown.stderr, new RegExp(`kept labs under \\S+: .*${runId}`), 'an unknown id names the kept lab');

    const destroyed = await runCli(t, ['destroy', runId, ...common]);
    t.equal(destroyed.code, 0, destroyed.stderr);
    t.same(domainsMatching(runId), [], 'destroy removed it');
  },
);
