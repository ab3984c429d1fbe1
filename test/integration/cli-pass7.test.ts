// The CLI's seventh adversarial pass (docs/cli-defects.md, rows Q53 on), through the real main() with the stand-ins:
// a build spec that is a URL with credentials, passwords in the power-reset command and job variables under names the
// sixth pass did not know, a lab folder whose lab-spec.json was cut, and the repro of one scenario of `run --all`.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
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
  const host = `{address: 127.0.0.1, user: root, key: ${key}}`;
  const yaml = (cmd: string) =>
    `lab:\n  provider: ssh\n  hard_reset_command: ${cmd}\n  hosts:\n    servers: [${host}]\n    clients: [${host}]\n`;
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
