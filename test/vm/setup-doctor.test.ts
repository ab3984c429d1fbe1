// VM tier: `setup` on a host that already has the packages and the box (idempotent, seconds), then `doctor`:
// every check must pass straight after setup (issue 10, defect 6), and setup's last lines name the next commands.
import t from 'tap';
import { runCli } from '../helpers/cli-child.js';
import { vmSkipReason } from '../helpers/vm-prereqs.js';

t.setTimeout(20 * 60_000);
const skip = vmSkipReason();

t.test('doctor passes straight after setup', { skip: skip ?? false }, async (t) => {
  const setup = await runCli(t, ['setup']);
  t.equal(setup.code, 0, 'setup exits 0');
  t.match(
    setup.stdout,
    /setup done\. libvirtd \(pid \d+\) runs in netns \S+\. Next:\n {2}reboot-harness doctor /,
    'names the next command',
  );
  const doctor = await runCli(t, ['doctor', '--json']);
  const report = JSON.parse(doctor.stdout) as {
    schema: string;
    checks: { name: string; ok: boolean; detail: string; fix: string }[];
  };
  t.equal(report.schema, 'nomad-reboot-harness/doctor@1');
  const items = report.checks;
  for (const i of items) t.ok(i.ok, `${i.name}: ${i.detail}${i.fix ? ` (fix: ${i.fix})` : ''}`);
  t.ok(
    items.some((i) => i.name === 'libvirtd reachable'),
    'libvirtd was checked',
  );
  t.equal(doctor.code, 0, 'doctor exits 0');
});
