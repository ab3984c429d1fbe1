// The rest of the 2026-12-06 CLI review's rows (docs/cli-defects.md) that pure functions decide: each message says
// what is so, once.
import t from 'tap';
import { keptMessage } from '../../lib/cli/labs.js';

t.test('--keep says how to destroy the lab once, whoever says it (N24)', async (t) => {
  const lab =
    'lab r1 (libvirt) in /w/r1: its bring-up never finished, so there is nothing to log in to\n  destroy:  reboot-harness destroy r1   (by hand: …)';
  const m = keptMessage('r1', [lab]);
  t.equal(m.match(/reboot-harness destroy r1/g)?.length, 1, 'once, not "destroy:" and "destroy later with:"');
  t.match(keptMessage('r1', ['a tunnel to the lab']), /destroy later with: reboot-harness destroy r1\n$/);
});

t.test('every --json document is one object with a schema id of one style, none a bare list (N36)', async (t) => {
  const { doctorDocument, DOCTOR_JSON_SCHEMA } = await import('../../lib/cli/doctor.js');
  const { SCENARIOS_JSON_SCHEMA } = await import('../../lib/cli/commands/list.js');
  const { PLAN_JSON_SCHEMA } = await import('../../lib/plan/session-plan.js');
  const { BUILD_JSON_SCHEMA } = await import('../../lib/cli/build.js');
  const { ERROR_JSON_SCHEMA } = await import('../../lib/cli/main.js');
  const { SUMMARY_SCHEMA } = await import('../../lib/report/json.js');
  const { CELLS_SCHEMA } = await import('../../lib/matrix/list.js');
  const { LABS_JSON_SCHEMA } = await import('../../lib/cli/labs.js');
  const ids = [
    LABS_JSON_SCHEMA,
    DOCTOR_JSON_SCHEMA,
    SCENARIOS_JSON_SCHEMA,
    PLAN_JSON_SCHEMA,
    BUILD_JSON_SCHEMA,
    ERROR_JSON_SCHEMA,
    SUMMARY_SCHEMA,
    CELLS_SCHEMA,
  ];
  for (const id of ids) t.match(id, /^nomad-reboot-harness\/[a-z-]+@\d+$/, id);
  t.equal(new Set(ids).size, ids.length, 'each its own');
  const item = { name: 'vagrant', ok: false, detail: 'not found', fix: 'install it' };
  t.same(doctorDocument([item]), { schema: DOCTOR_JSON_SCHEMA, ok: false, checks: [item] });
  t.equal(doctorDocument([{ ...item, ok: true }]).ok, true);
});

t.test("merge: a renamed run folder's attachments are the files beside its report (N38)", async (t) => {
  const { attachmentLocator } = await import('../../lib/merge/locate.js');
  const locate = attachmentLocator([
    '/ci/evil/alloc-after.json',
    '/ci/evil/summary.json',
    '/ci/other/alloc-after.json',
  ]);
  t.equal(locate('reports/rabc123/alloc-after.json', '/ci/evil'), '/ci/evil/alloc-after.json');
  t.equal(locate('reports/rabc123/alloc-after.json'), undefined, 'without its report folder: no guess');
  t.equal(locate('reports/rabc123/gone.json', '/ci/evil'), undefined);
});

t.test(
  'a box name and a CPU model are checked for their form up front, not by Vagrant minutes later (N39)',
  async (t) => {
    const { resolveConfig } = await import('../../lib/config/validate.js');
    const { labConfigRules } = await import('../../lib/lab/providers.js');
    const { ConfigError } = await import('../../lib/errors.js');
    const problems = (flags: Record<string, unknown>) => {
      const r = resolveConfig({ file: undefined, env: {}, flags, knownChecks: [], labRules: labConfigRules });
      return r.ok ? '' : new ConfigError(r.problems).message;
    };
    for (const box of ['../../etc', 'evil\nFAKE LINE: ok every check passed', 'b\u001b[2J', '/abs', 'a/b/c', '.hidden'])
      t.match(problems({ box }), /--box: must be a Vagrant box name: name or org\/name/, JSON.stringify(box));
    t.notMatch(problems({ box: 'b\u001b[2J' }), /\u001b/, 'shown escaped');
    for (const box of ['nomad-reboot-harness/bookworm', 'generic/debian12', 'bookworm64', 'vmlab/bookworm-docker.v2'])
      t.equal(problems({ box }), '', box);
    t.match(problems({ 'cpu-model': 'x; touch PWNED' }), /--cpu-model: must be a QEMU CPU model name/);
    for (const m of ['Nehalem', 'Skylake-Client-v4', 'host', 'qemu64', 'EPYC-Rome'])
      t.equal(problems({ 'cpu-model': m }), '', m);
  },
);

t.test('setup --help names what it does to the host besides packages and the box (H7)', async (t) => {
  const { commandHelp } = await import('../../lib/cli/command.js');
  const { setup } = await import('../../lib/cli/commands/setup.js');
  const help = commandHelp(setup).replace(/\s+/g, ' ');
  for (const said of [
    /virtlogd and libvirtd inside the network namespace lab\.netns \(--netns, HARNESS_NETNS, harness\.yaml/,
    /blackhole routes on the host for lab\.private_subnet and lab\.management_subnet/,
    /\/dev\/kvm to the kvm group/,
    /the destroy command's host option/,
    /--netns <value>/,
  ])
    t.match(help, said);
});

t.test('login: its own words are told with the config, at once (all problems at once, every command)', async (t) => {
  const { main } = await import('../../lib/cli/main.js');
  const { probe } = await import('../helpers/cli-probe.js');
  const p = probe(t.testdir());
  t.equal(await main(['login', '--netns', 'a b', '--command', ' '], p.deps), 2);
  t.match(p.err(), /invalid configuration \(3 problems\)/);
  for (const said of [/--netns: must be a network namespace name/, /run id: is required/, /--command: is empty/])
    t.match(p.err(), said);
});
