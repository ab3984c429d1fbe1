// The CLI's seventh adversarial pass (docs/cli-defects.md, rows Q53 on), through the real main() with the stand-ins:
// a build spec that is a URL with credentials, passwords in the power-reset command and job variables under names the
// sixth pass did not know, a lab folder whose lab-spec.json was cut, and the repro of one scenario of `run --all`.
import { writeLablessScenario } from '../helpers/labless-scenario.js';
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { destroyLabs } from '../../lib/cli/destroy.js';
import { findLabs } from '../../lib/cli/labs.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { createBuildLayer } from '../../lib/session/builds.js';
import type { LogEvent } from '../../lib/log/events.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { PLAN_NOMAD, planOnlyCli } from '../helpers/cli-plan-only.js';

t.test('a build spec that is a URL with credentials is refused without printing them (Q53)', async (t) => {
  const token = 'ghp_Q53cr3tT0kenValue1234567890';
  const cwd = t.testdir({});
  for (const argv of [
    ['run', '--nomad', `https://bob:${token}@example.com/nomad`, '--plan'],
    ['build', `https://${token}@example.com/nomad`],
    ['compare', '--before', `https://bob:${token}@example.com/nomad`, '--after', `https://${token}@x.io/n`, '--plan'],
  ]) {
    const s = standInPerRun({}, { cwd });
    const code = await main([...argv, '--netns', ''], { ...s.deps, builds: createBuildLayer({ env: {} }) });
    t.equal(code, 2, argv.join(' '));
    const all = s.out.join('') + s.err.join('');
    t.match(all, /no file at .*https:\/\[REDACTED\]@example\.com\/nomad/, 'the path it looked at, without them');
    t.notMatch(all, token.slice(4), `${argv[0]}: the token is nowhere`);
  }
});

t.test('passwords in lab.hard_reset_command in the forms ipmitool, env and curl take are redacted (Q54)', async (t) => {
  const cli = planOnlyCli(t);
  const key = join(cli.dir, 'key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const pw = 'Q54Ipm1S3cretPw';
  // a port each: one machine listed twice is refused (Q334)
  const host = (port: number) => `{address: 127.0.0.1, port: ${port}, user: root, key: ${key}}`;
  const yaml = (cmd: string) =>
    `lab:\n  provider: ssh\n  hard_reset_command: ${cmd}\n  hosts:\n    servers: [${host(2201)}]\n    clients: [${host(2202)}]\n`;
  for (const cmd of [
    `"ipmitool -I lanplus -H {address} -U admin -P${pw} chassis power reset"`,
    `[env, "IPMI_PASSWORD=${pw}", ipmitool, -E, -H, "{address}", power, reset]`,
    `"curl -u admin:${pw} http://pdu.example/{address}/reset"`,
    `"redfish-reset --pw ${pw} {address}"`,
  ]) {
    writeFileSync(join(cli.dir, 'h.yaml'), yaml(cmd));
    const r = await cli.run(['run', '--nomad', PLAN_NOMAD, '-c', join(cli.dir, 'h.yaml'), '--plan']);
    t.equal(r.code, 0, r.err);
    t.match(r.out, /"hardResetCommand": \[/);
    t.notMatch(r.out + r.err, pw, `${cmd}: the password is nowhere`);
    t.match(r.out, /\[REDACTED\]/);
  }
});

t.test('a job variable named db_pass or passphrase is redacted like registry_password (Q55)', async (t) => {
  const cli = planOnlyCli(t);
  const pw = 'Q55Sup3rS3cretDbPw';
  for (const name of ['db_pass', 'ssh_passphrase']) {
    writeFileSync(
      join(cli.dir, 'h.yaml'),
      `job:\n  file: ${join(process.cwd(), 'examples/jobs/count-3.nomad.hcl')}\n  vars:\n    count: 2\n    bypass_cache: "not-a-secret"\n    ${name}: ${pw}\n`,
    );
    const plan = await cli.run(['run', '--nomad', PLAN_NOMAD, '-c', join(cli.dir, 'h.yaml'), '--plan']);
    t.equal(plan.code, 0, plan.err);
    t.match(plan.out, new RegExp(`"${name}": "\\[REDACTED\\]"`));
    t.notMatch(plan.out + plan.err, pw);
    t.match(plan.out, /"bypass_cache": "not-a-secret"/, 'a word that only contains "pass" is no secret name');
  }
});

t.test('destroy goes on past a lab whose lab-spec.json a killed run cut: named, kept, exit 3 (Q56)', async (t) => {
  const root = t.testdir({
    work: {
      cut: { 'lab-spec.json': '{"runId": "cut", "mach' },
      empty: { 'lab-spec.json': '{}' },
      r1: {},
    },
    fake: {},
  });
  const spec = {
    runId: 'r1',
    box: 'b',
    provider: 'virtualbox',
    cpus: 1,
    memoryMb: 768,
    bootTimeoutS: 60,
    machines: [{ name: 'r1-client', role: 'client', privateIp: '10.199.0.11' }],
    privateNetwork: { name: 'p', subnet: '10.199.0.0/24' },
  };
  writeFileSync(join(root, 'work', 'r1', 'lab-spec.json'), JSON.stringify(spec));
  const config = {
    ...DEFAULTS,
    lab: { ...DEFAULTS.lab, provider: 'virtualbox' as const, workDir: join(root, 'work') },
  };
  const env = {
    PATH: `${fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url))}:${process.env['PATH']}`,
    FAKE_VAGRANT_MODE: 'dir',
    FAKE_VAGRANT_DIR: join(root, 'fake'),
  };
  const events: LogEvent[] = [];
  const code = await destroyLabs(config, [], true, (e) => void events.push(e), { vagrant: { env, lockDir: root } });
  t.equal(code, 3, 'not a harness bug (70): two labs could not be destroyed');
  const warns = events.flatMap((e) => (e.kind === 'warn' ? [e.message] : [])).join('\n');
  t.match(warns, /could not destroy lab cut \(.*cut\): its lab-spec\.json cannot be read: .*; kept/);
  t.match(warns, /could not destroy lab empty .*it is no lab spec/, 'a spec of the wrong shape too');
  t.same(readdirSync(join(root, 'work')).sort(), ['cut', 'empty'], 'the other lab destroyed, the two kept');
  const { labs, problems } = await findLabs(config);
  t.same(
    labs.map((l) => l.id),
    [],
  );
  t.match(problems.join('\n'), /lab empty .*it is no lab spec/, 'list-labs names it the same way');
});

/** The argv after the CLI entry of a repro.sh's command line, as the shell would pass it. */
function reproArgv(file: string): string[] {
  const line = readFileSync(file, 'utf8').trim().split('\n').at(-1)!;
  const tail = line.slice(line.indexOf('reboot-harness.js ') + 'reboot-harness.js '.length);
  return execFileSync('bash', ['-c', `for a in ${tail}; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
}

t.test('the repro of one scenario of run --all passes only what that scenario takes alone (Q57)', async (t) => {
  const cwd = t.testdir({});
  writeLablessScenario(join(cwd, 'mine'), 'mine-bad', 'failed');
  // every lab fails to come up: each Nomad scenario breaks and prints its repro
  const s = standInPerRun({ [PLAN_NOMAD]: { timeline: 'restored', version: '1.9.7', failUpLab: 99 } }, { cwd });
  const argv = ['run', '--all', '--scenarios', join(cwd, 'mine'), '--nomad', PLAN_NOMAD, '--upgrade-to', PLAN_NOMAD];
  const flags = ['--expect', 'task-dirs=fail', '--reboot', 'power-off', '--off-for', '30s', '--netns', ''];
  const code = await main([...argv, ...flags, '--reports-dir', join(cwd, 'reports')], s.deps);
  t.not(code, 0, s.err.join(''));
  const repros = readdirSync(join(cwd, 'reports')).flatMap((d) => {
    const f = join(cwd, 'reports', d, 'repro.sh');
    try {
      return [{ f, argv: reproArgv(f) }];
    } catch {
      return [];
    }
  });
  const scenarios = repros.map((r) => r.argv[1]).sort();
  t.ok(scenarios.includes('bridge-exec-reboot') && scenarios.includes('mine-bad'), scenarios.join(' '));
  for (const r of repros) {
    const again = standInPerRun({ [PLAN_NOMAD]: { timeline: 'restored', version: '1.9.7' } }, { cwd });
    const res = await main([...r.argv, '--plan'], again.deps);
    t.equal(res, 0, `${r.argv.join(' ')}: ${again.err.join('')}`);
  }
  const byName = Object.fromEntries(repros.map((r) => [r.argv[1], r.argv.join(' ')]));
  t.match(byName['bridge-exec-reboot'], /--expect task-dirs=fail/, 'a flag the scenario reads is kept');
  t.notMatch(byName['bridge-exec-reboot'], /--upgrade-to/);
  t.notMatch(byName['mine-bad'], /--expect task-dirs/, 'an --expect of a check the scenario lacks is left out');
  if (byName['upgrade-in-place']) t.notMatch(byName['upgrade-in-place'], /--reboot|--off-for/);
});

t.test("a matrix cell's repro passes a fault option only to the cells whose fault reads it (Q57)", async (t) => {
  const cwd = t.testdir({});
  const file = join(cwd, 'm.yaml');
  writeFileSync(
    file,
    `scenario: bridge-exec-reboot\ndefaults:\n  nomad_binary: ${PLAN_NOMAD}\naxes:\n  reboot: [graceful, power-off]\n`,
  );
  const s = standInPerRun({ [PLAN_NOMAD]: { timeline: 'restored', version: '1.9.7', failUpLab: 99 } }, { cwd });
  const code = await main(['matrix', file, '--off-for', '30s', '--netns', '', '--reports-dir', join(cwd, 'r')], s.deps);
  t.equal(code, 3, s.err.join(''));
  const repros = readdirSync(join(cwd, 'r')).flatMap((d) => {
    try {
      return [reproArgv(join(cwd, 'r', d, 'repro.sh'))];
    } catch {
      return [];
    }
  });
  t.equal(repros.length, 2, 'a repro per cell');
  for (const argv of repros) {
    const again = standInPerRun({ [PLAN_NOMAD]: { timeline: 'restored', version: '1.9.7' } }, { cwd });
    t.equal(await main([...argv, '--plan'], again.deps), 0, `${argv.join(' ')}: ${again.err.join('')}`);
    t.equal(argv.includes('--off-for'), argv.join(' ').includes('reboot=power-off'), argv.join(' '));
  }
});

t.test("merge's exit codes name 130, which it gives when a merged cell was interrupted (Q59)", async (t) => {
  const s = standInPerRun({}, { cwd: t.testdir({}) });
  t.equal(await main(['merge', '--help'], s.deps), 0);
  t.match(s.out.join(''), /Exit codes: .*; 130 a cell was interrupted/);
});

t.test(
  'compare and matrix do not offer --repeat, which they refuse: their help and the parser agree (Q60)',
  async (t) => {
    const cli = planOnlyCli(t);
    for (const cmd of ['compare', 'matrix']) {
      const help = await cli.run([cmd, '--help']);
      t.notMatch(help.out, /--repeat/, `${cmd} --help`);
      const r = await cli.run([cmd, 'x.yaml', '--repeat', '2', '--before', PLAN_NOMAD, '--after', PLAN_NOMAD]);
      t.equal(r.code, 2);
      t.match(r.err, new RegExp(`--repeat: is an option of \`run\`, \`bisect\`, not of \`${cmd}\``));
    }
    t.match((await cli.run(['run', '--help'])).out, /--repeat/, 'run still takes it');
  },
);

t.test('merge refuses a summary.json whose runs are not a list instead of merging it as no suites (Q71)', async (t) => {
  const cwd = t.testdir({
    shard: {
      r1: {
        'summary.json': JSON.stringify({
          schema: 'nomad-reboot-harness/summary@1',
          outcome: 'failed',
          exitCode: 1,
          runs: { r1: 'failed' },
          suites: 5,
        }),
      },
    },
  });
  const s = standInPerRun({}, { cwd });
  t.equal(await main(['merge', 'shard', '--out', 'merged'], s.deps), 2, 'not exit 0 with 0 suites');
  t.match(s.err.join(''), /is not a summary a run wrote: "runs", "suites" not a list/);
});

t.test("a matrix file's defaults: repeat is refused, as --repeat is, not run once without a word (Q61)", async (t) => {
  const cli = planOnlyCli(t);
  const dir = join(cli.dir, 'mine');
  writeLablessScenario(dir, 'pure-rep');
  const file = join(cli.dir, 'm.yaml');
  writeFileSync(
    file,
    `scenario: pure-rep\ndefaults:\n  scenarios_dir: ${dir}\n  repeat: 3\naxes:\n  reboot: [graceful]\n`,
  );
  for (const extra of [[], ['--list-cells']]) {
    const r = await cli.run(['matrix', file, ...extra]);
    t.equal(r.code, 2, `matrix ${extra.join(' ')}: ${r.out}`);
    t.match(r.err, /m\.yaml: defaults: repeat: applies to run only: a matrix runs each cell once/);
  }
  writeFileSync(
    file,
    `scenario: pure-rep\ndefaults:\n  scenarios_dir: ${dir}\n  repeat: 1\naxes:\n  reboot: [graceful]\n`,
  );
  t.equal((await cli.run(['matrix', file, '--list-cells'])).code, 0, 'repeat: 1 is what a matrix does');
});

t.test('a jump host or address written user:password@host is never echoed with its password (Q74)', async (t) => {
  const cli = planOnlyCli(t);
  const key = join(cli.dir, 'key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const pw = 'Q74JumpS3cretPw';
  for (const host of [
    (port: number) => `{address: 127.0.0.1, port: ${port}, user: root, key: ${key}, jump: "bob:${pw}@bastion.example"}`,
    (port: number) => `{address: "root:${pw}@127.0.0.1", port: ${port}, user: root, key: ${key}}`,
  ]) {
    // a port each: one machine listed twice is refused (Q334)
    writeFileSync(
      join(cli.dir, 'h.yaml'),
      `lab:\n  provider: ssh\n  hosts:\n    servers: [${host(2201)}]\n    clients: [${host(2202)}]\n`,
    );
    const r = await cli.run(['run', '--nomad', PLAN_NOMAD, '-c', join(cli.dir, 'h.yaml'), '--plan']);
    t.notMatch(r.out + r.err, pw, `${host(2201)}: the password is nowhere`);
    t.match(r.out + r.err, /:\[REDACTED\]@/);
  }
});
