// The CLI's twenty-fourth adversarial pass, part A (docs/cli-defects.md, rows Q331 on): Q330's guard in close
// variants, through the real CLI: a user scenario's 'exit' listener added after the command ended, and a matrix whose
// cells ran at once leaving a run's process.exit in place; and existing hosts that name one machine twice (Q334).
import t from 'tap';
import '../helpers/ts-loader.js';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { noLabCli } from '../helpers/cli-no-lab.js';
import { runCliTs } from '../helpers/cli-tsx.js';
import { writeLablessScenario, writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

/** The CLI as a process of its own (the exit code is the process's): several of a test run side by side. */
function harness(dir: string, argv: string[], env: Record<string, string> = {}) {
  return runCliTs([...argv, '--reports-dir', join(dir, 'reports'), '--netns', ''], {
    cwd: dir,
    env: {
      ...process.env,
      HARNESS_WORK_DIR: join(dir, 'work'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      CI: 'true',
      ...env,
    },
    timeoutMs: 45_000,
  });
}

t.test(
  "a user scenario's 'exit' listener added after the command ended does not turn a FAIL into exit 0 (Q331)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    // a 'beforeExit' listener fires once the command has ended, after the harness's own 'exit' listener was added
    writeScenarioWithBody(
      usc,
      'beforeon',
      "process.once('beforeExit', () => process.on('exit', () => { process.exitCode = 0; })); return judgeAll(CHECKS, {});",
      'failed',
    );
    writeScenarioWithBody(
      usc,
      'beforecode',
      "process.once('beforeExit', () => process.on('exit', (c) => { process.exitCode = 0; if (c) process.exit(0); })); return judgeAll(CHECKS, {});",
      'failed',
    );
    // a timer that adds one later (it fires after the command ended unless the machine is very slow)
    writeScenarioWithBody(
      usc,
      'lateon',
      "setTimeout(() => process.on('exit', () => { process.exitCode = 0; }), 2500); return judgeAll(CHECKS, {});",
      'failed',
    );
    // the same in a matrix cell; the four processes side by side
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [beforeon]\naxes:\n  clients: [1]\n');
    const names = ['beforeon', 'beforecode', 'lateon'];
    const [m, ...runs] = await Promise.all([
      harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]),
      ...names.map((name) => harness(dir, ['run', name, '--scenarios', usc])),
    ]);
    for (const [i, name] of names.entries()) {
      const r = runs[i]!;
      t.match(r.stdout, new RegExp(`FAIL ${name}`), `${name}: the verdict is FAIL`);
      t.equal(r.status, 1, `${name}: exit 1, the verdict's code (${r.stderr.slice(-300)})`);
    }
    t.match(m.stdout, /FAIL beforeon\/clients=1/);
    t.equal(m.status, 1, `matrix: exit 1 (${m.stderr.slice(-300)})`);
  },
);

t.test(
  'a matrix whose cells ran at once and ended out of order still exits once the grace after the command is over (Q332)',
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeLablessScenario(usc, 'ok');
    // starts second, ends last, and leaves a timer that keeps the process alive
    writeScenarioWithBody(
      usc,
      'linger',
      'await new Promise((r) => setTimeout(r, 1500)); setInterval(() => {}, 1000); return judgeAll(CHECKS, {});',
    );
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [ok, linger]\naxes:\n  clients: [1]\nparallel: 2\n');
    const started = Date.now();
    const r = await harness(dir, ['matrix', 'm.yaml', '--scenarios', usc], { HARNESS_EXIT_GRACE_MS: '1000' });
    t.equal(r.signal, null, `not killed by the test's 45 s timeout (${r.stderr.slice(-400)})`);
    t.equal(r.status, 0, 'exit 0, the verdict');
    t.match(r.stderr, /still open 1 s after the command ended: 1 timer .*; exiting with 0/);
    t.ok(Date.now() - started < 40_000, 'ended soon after the grace');
  },
);

/** main() in-process with a console captured; no lab may be made. */
const cli = (cwd: string) => noLabCli(cwd);

t.test(
  "matrix: an axes.nomad entry's upgrade_to that no cell reads is refused, as run's --upgrade-to is (Q333)",
  async (t) => {
    const dir = t.testdir({
      'm.yaml': 'scenario: bridge-exec-reboot\naxes:\n  nomad:\n    - { name: a, binary: 1.9.7, upgrade_to: 1.9.8 }\n',
      // upgrade-in-place reads it: taken
      'both.yaml':
        'scenario: [bridge-exec-reboot, upgrade-in-place]\naxes:\n  nomad:\n    - { name: a, binary: 1.9.7, upgrade_to: 1.9.8 }\n',
    });
    const ignored =
      /m\.yaml: axes\.nomad\[0\]\.upgrade_to: is read by upgrade-in-place only, and the cells of build a run bridge-exec-reboot, so it would be ignored/;
    for (const argv of [['--plan'], ['--list-cells', '--shards', '2']]) {
      const c = cli(dir);
      t.equal(await c.run('matrix', 'm.yaml', ...argv, '--netns', ''), 2, `${argv.join(' ')}: ${c.err()}`);
      t.match(c.err(), ignored, `${argv.join(' ')}: the upgrade no cell makes`);
    }
    const c = cli(dir);
    t.equal(await c.run('matrix', 'both.yaml', '--plan', '--netns', ''), 0, c.err());
    t.notMatch(c.err(), /upgrade_to/);
  },
);

t.test(
  'existing hosts: one machine listed twice is refused with the rest, before anything is made (Q334)',
  async (t) => {
    const dir = t.testdir({ pasted: {}, spelled: {}, apart: {} });
    const key = join(dir, 'key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const hosts = (at: string, clients: string[]) =>
      writeFileSync(
        join(dir, at, 'harness.yaml'),
        [
          'lab:',
          '  provider: ssh',
          '  hosts:',
          `    servers: [{ address: 203.0.113.10, user: admin, key: ${key} }]`,
          '    clients:',
          ...clients.map((c) => `      - { ${c}${c.includes('user:') ? '' : ', user: admin'}, key: ${key} }`),
          '',
        ].join('\n'),
      );
    // a pasted line: the server's machine as a client too (another user does not make it another machine)
    hosts('pasted', ['address: 203.0.113.10, user: ops', 'address: 203.0.113.11']);
    // Note: a release on a loopback port nothing listens on: a run that got past its checks fails to fetch it (exit 3)
    const run = ['run', 'rolling-reboot', '--nomad', '1.9.7', '--releases-url', 'http://127.0.0.1:9', '--netns', ''];
    const c = cli(join(dir, 'pasted'));
    t.equal(await c.run(...run, '--cpus', '0'), 2, c.err());
    t.match(
      c.err(),
      /lab\.hosts\.clients\[0\]\.address: names the machine lab\.hosts\.servers\[0\] names \(203\.0\.113\.10, port 22\): each host is a machine of its own .*\(got "203\.0\.113\.10"; fix: list each machine once: give lab\.hosts\.clients\[0\] another machine \(address or port\), or remove it\)/,
    );
    t.match(c.err(), /--cpus/, 'told with the other problems of the input');
    t.notOk(existsSync(join(dir, 'pasted', 'work')), 'nothing made: no lab folder');
    const alone = cli(join(dir, 'pasted'));
    t.equal(await alone.run(...run), 2, `alone, it is the problem: ${alone.err()}`);
    t.match(alone.err(), /^error: invalid configuration: lab\.hosts\.clients\[0\]\.address: names the machine/);
    // two clients: one machine however its address is written (case, a trailing dot, IPv6 forms)
    hosts('spelled', [
      'address: Box.Example.',
      'address: box.example',
      "address: '[2001:db8::1]'",
      "address: '2001:DB8:0:0:0:0:0:1'",
    ]);
    const s = cli(join(dir, 'spelled'));
    t.equal(await s.run(...run, '--plan'), 2, s.err());
    t.match(
      s.err(),
      /lab\.hosts\.clients\[1\]\.address: names the machine lab\.hosts\.clients\[0\] names \(box\.example, port 22\)/,
    );
    t.match(s.err(), /lab\.hosts\.clients\[3\]\.address: names the machine lab\.hosts\.clients\[2\] names/);
    // another port (another sshd: a forwarded port, a container), another jump host, a name beside an IP: taken
    hosts('apart', [
      'address: 203.0.113.10, port: 2222',
      'address: 10.0.0.5, jump: bastion-a',
      'address: 10.0.0.5, jump: bastion-b',
      'address: localhost',
      'address: 127.0.0.1',
    ]);
    const a = cli(join(dir, 'apart'));
    t.equal(await a.run(...run, '--plan'), 0, a.err());
    t.notMatch(a.err(), /names the machine/);
  },
);
