// --plan through the real CLI against STAND-INS: the plan is plain data, printed as JSON that parses back to what the
// planner built, every problem of the input still reported first, and nothing created (no lab, no run, no report).
import t, { type Test } from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { planOnlyCli } from '../helpers/cli-plan-only.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { PLAN_JSON_SCHEMA, configInSlot, type Plan } from '../../lib/plan/session-plan.js';

/** Two stand-in builds: a 1.9.7 that a reboot restores, a 1.9.3 that hands out a duplicate IP. */
const cli = (t: Test) =>
  planOnlyCli(t, {
    '/stand-in/nomad-1.9.7': { timeline: 'restored', version: '1.9.7' },
    '/stand-in/nomad-1.9.3': { timeline: 'duplicate-ip', version: '1.9.3' },
  });

t.test('run --plan prints the plan as JSON and creates nothing', async (t) => {
  const c = cli(t);
  const { code } = await c.run([
    'run',
    'bridge-exec-reboot',
    '--nomad',
    '/stand-in/nomad-1.9.7',
    '--reboot',
    'hard',
    '--plan',
  ]);
  t.equal(code, 0);
  const doc = JSON.parse(c.s.out.join('')) as { schema: string; plan: Plan };
  t.equal(doc.schema, PLAN_JSON_SCHEMA);
  t.equal(doc.plan.command, 'run');
  t.equal(doc.plan.cells.length, 1);
  t.match(doc.plan.cells[0], { key: 'bridge-exec-reboot', scenario: 'bridge-exec-reboot', variant: ['reboot=hard'] });
  t.equal(doc.plan.cells[0]!.config.reboot.kind, 'hard', 'the cell carries its config as data');
  t.same(JSON.parse(JSON.stringify(doc.plan)), doc.plan, 'a JSON round trip changes nothing');
  t.equal(c.s.runs.length, 0, 'no run started');
  t.notOk(existsSync(join(c.dir, 'reports')), 'no report written');
});

t.test('matrix --plan: every cell with its config and its slot subnets derived from data', async (t) => {
  const c = cli(t);
  const file = join(c.dir, 'm.yaml');
  writeFileSync(
    file,
    [
      'scenario: bridge-exec-reboot',
      'axes:',
      '  nomad: [{ name: "1.9.3", binary: /stand-in/nomad-1.9.3 }, { name: "1.9.7", binary: /stand-in/nomad-1.9.7 }]',
      '  reboot: [graceful, hard]',
      'parallel: 2',
      '',
    ].join('\n'),
  );
  t.equal((await c.run(['matrix', file, '--plan'])).code, 0);
  const { plan } = JSON.parse(c.s.out.join('')) as { plan: Plan };
  t.equal(plan.cells.length, 4);
  t.same(plan.cells.map((x) => x.config.nomadBinary).sort(), [
    '/stand-in/nomad-1.9.3',
    '/stand-in/nomad-1.9.3',
    '/stand-in/nomad-1.9.7',
    '/stand-in/nomad-1.9.7',
  ]);
  const slot2 = configInSlot(plan.cells[0]!.config, 2);
  t.not(slot2.lab.privateSubnet, plan.cells[0]!.config.lab.privateSubnet, 'a slot gets subnets of its own');
  t.ok(plan.subnets.includes(slot2.lab.privateSubnet), 'and the plan guards them');
  t.equal(c.s.runs.length, 0);
});

t.test('--plan with bad input reports every problem, exit 2, no plan printed', async (t) => {
  const c = cli(t);
  const { code } = await c.run([
    'run',
    'bridge-exec-reboot',
    '--nomad',
    '/stand-in/nomad-1.9.7',
    '--cpus',
    '0',
    '--reboot',
    'sideways',
    '--plan',
  ]);
  t.equal(code, 2);
  t.equal(c.s.out.join(''), '', 'nothing on stdout');
  t.match(c.s.err.join(''), /--cpus[^]*--reboot/);
});

t.test('--plan never shows the ACL token', async (t) => {
  const c = cli(t);
  c.s.deps.env['NOMAD_TOKEN'] = 'secret-token-5f0e';
  t.equal((await c.run(['run', 'bridge-exec-reboot', '--nomad', '/stand-in/nomad-1.9.7', '--plan'])).code, 0);
  t.notMatch(c.s.out.join(''), /secret-token-5f0e/);
});

t.test('existing hosts: a key ssh cannot use is exit 2 before any build or preflight, with the rest', async (t) => {
  const c = cli(t);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(c.dir, 'keydir'));
  writeFileSync(join(c.dir, 'junk'), 'not a key\n');
  writeFileSync(
    join(c.dir, 'hosts.yaml'),
    'lab:\n  provider: ssh\n  hosts_netns: nrh-no-such-ns\n  hosts:\n' +
      // a port each: one machine listed twice is refused (Q334)
      '    server: { address: 127.0.0.1, port: 2201, user: root, key: keydir }\n' +
      '    client: { address: 127.0.0.1, port: 2202, user: root, key: junk }\n',
  );
  let preflights = 0;
  const code = await main(
    ['run', '--nomad', '/stand-in/nomad-1.9.7', '--config', join(c.dir, 'hosts.yaml'), '--cpus', '0'],
    {
      ...c.s.deps,
      hostsPreflight: async () => {
        preflights++;
        return [];
      },
      makeEnv: () => {
        throw new Error('a bad key must not make a lab');
      },
    },
  );
  t.equal(code, 2);
  const err = c.s.err.join('');
  t.match(err, /lab\.hosts\.server\.key: is a directory, not a key file \(got "keydir"/);
  t.match(err, /lab\.hosts\.client\.key: is not a private key ssh can use: .*\(got "junk"/);
  t.match(err, /--cpus/, 'with the other problems of the input');
  t.match(err, /lab\.hosts_netns: is not a network namespace here \(got "nrh-no-such-ns"/, 'and the missing namespace');
  t.equal(preflights, 0, 'refused before the preflight (which builds the CNI plugins)');
});

t.test('the job as the build parses it is judged with the rest of the input, and under --plan', async (t) => {
  const dir = t.testdir({
    nomad: 'a build on disk',
    'noports.nomad.hcl':
      'job "np" {\n  group "g" {\n    network { mode = "bridge" }\n    task "t" {\n      driver = "exec"\n      config { command = "/bin/sleep" }\n    }\n  }\n}\n',
  });
  const s = standInPerRun({ [join(dir, 'nomad')]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const deps = {
    ...s.deps,
    makeEnv: () => {
      throw new Error('nothing may be made');
    },
  };
  const base = ['run', '--nomad', join(dir, 'nomad'), '--job', 'noports.nomad.hcl', '--netns', ''];
  t.equal(await main([...base, '--cpus', '0'], deps), 2);
  const err = s.err.join('');
  t.match(err, /2 problems/);
  t.match(err, /--cpus: must be a whole number/);
  t.match(
    err,
    /job\.file \(--job\): job "np" group "g" is a bridge group the scenario cannot probe: .*\(got "noports\.nomad\.hcl"/,
  );
  s.err.length = 0;
  t.equal(await main([...base, '--plan'], deps), 2, '--plan validates the job too');
  t.match(s.err.join(''), /group "g" is a bridge group the scenario cannot probe/);
  t.equal(s.out.join(''), '', 'no plan printed');
});

t.test(
  'a job that could never run as asked is refused under --plan, naming the file, the block and the fix',
  async (t) => {
    const task = (driver: string) =>
      `    task "${driver}-t" {\n      driver = "${driver}"\n      config { command = "/bin/sleep" }\n    }\n`;
    const group = (body: string, count = 1) =>
      `  group "g" {\n    count = ${count}\n    network {\n      mode = "bridge"\n      port "http" { to = 8080 }\n${body}    }\n${task('exec')}  }\n`;
    const dir = t.testdir({
      nomad: 'a build on disk',
      'docker.nomad.hcl': `job "dk" {\n  group "g" {\n    network {\n      mode = "bridge"\n      port "http" { to = 8080 }\n    }\n${task('docker')}  }\n}\n`,
      'static.nomad.hcl': `job "st" {\n${group('      port "api" { static = 9000 }\n', 3)}}\n`,
      'periodic.nomad.hcl': `job "pe" {\n  periodic {\n    crons = ["@daily"]\n  }\n${group('')}}\n`,
      'param.nomad.hcl': `job "pa" {\n  parameterized {\n    payload = "forbidden"\n  }\n${group('')}}\n`,
    });
    const s = standInPerRun({ [join(dir, 'nomad')]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const deps = {
      ...s.deps,
      makeEnv: () => {
        throw new Error('nothing may be made');
      },
    };
    const refused = async (file: string, extra: string[], what: RegExp) => {
      s.err.length = 0;
      const argv = ['run', ...extra, '--nomad', join(dir, 'nomad'), '--job', file, '--netns', '', '--plan'];
      t.equal(await main(argv, deps), 2, `${file} ${extra.join(' ')}: refused`);
      t.match(s.err.join(''), what);
      t.match(s.err.join(''), new RegExp(`got "${file.replace('.', '\\.')}"`), 'naming the file');
    };
    await refused(
      'docker.nomad.hcl',
      [],
      /job "dk" group "g" task "docker-t" uses driver "docker", which the box .* does not run \(it runs exec, raw_exec\).*npm run harness -- setup --docker/,
    );
    await refused(
      'static.nomad.hcl',
      ['--clients', '2'],
      /job "st" group "g" has count = 3 and the static port "api".*lower count to 2, or give --clients 3/,
    );
    await refused(
      'periodic.nomad.hcl',
      ['rolling-reboot'],
      /job "pe" has a periodic block: .*remove the periodic block/,
    );
    await refused(
      'param.nomad.hcl',
      ['server-reboot'],
      /job "pa" has a parameterized block: .*remove the parameterized block/,
    );
    s.err.length = 0;
    t.equal(
      await main(
        ['run', '--clients', '3', '--nomad', join(dir, 'nomad'), '--job', 'static.nomad.hcl', '--netns', '', '--plan'],
        deps,
      ),
      0,
      'three clients hold three static ports',
    );
  },
);

t.test('matrix: one mistake in many cells is one problem with its count', async (t) => {
  const c = cli(t);
  writeFileSync(
    join(c.dir, 'm.yaml'),
    'scenario: bridge-exec-reboot\naxes:\n  nomad:\n    - {name: a, binary: /stand-in/nomad-1.9.7}\n    - {name: b, binary: /stand-in/nomad-1.9.3}\n' +
      '  reboot: [graceful, hard]\n  driver: [docker]\n',
  );
  t.equal(await main(['matrix', join(c.dir, 'm.yaml'), '--plan', '--netns', ''], { ...c.s.deps, cwd: c.dir }), 2);
  const err = c.s.err.join('');
  t.match(
    err,
    /4 cells \(bridge-exec-reboot\/nomad=a\/reboot=graceful\/driver=docker, .* and 2 more\): .*m\.yaml: axes\.driver: needs a box with Docker/,
  );
  t.equal((err.match(/needs a box with Docker/g) ?? []).length, 1, 'said once');
});
