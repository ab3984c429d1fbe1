// `login` and `list-labs` through the real CLI (a child process, as a person runs it), against a REAL OpenSSH sshd on
// 127.0.0.1 standing for the lab's machines: a kept lab's directory as a run leaves it (lab-spec.json and the
// ssh-config `vagrant ssh-config` wrote, here pointing at the sshd), a warm lab's, and lab.provider ssh hosts.
// `--netns ''`: the stand-in is reached from here, not from the lab namespace. The commands of a case run side by
// side (each is its own process reading the same lab directory), then their results are asserted.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { sshdForTest } from '../helpers/sshd.js';
import { CLI_COMPILED } from '../helpers/cli-child.js';

const sshd = await sshdForTest(t);
const KEPT = 'r0kept1a2b3c4d';
const WARM = 'warm-0123456789abcdef';

function labSpec(runId: string, roles: string[]) {
  return {
    runId,
    box: 'nomad-reboot-harness/bookworm',
    provider: 'libvirt',
    cpus: 2,
    memoryMb: 1024,
    machines: roles.map((role, i) => ({
      name: `${runId}-${role}`,
      role: role.replace(/-\d+$/, ''),
      ...(roles.length > 2 ? { slot: role } : {}),
      privateIp: `10.199.0.${10 + i}`,
    })),
    privateNetwork: { name: `${runId}-priv`, subnet: '10.199.0.0/24' },
    libvirt: {
      driver: 'qemu',
      tbCacheMb: 0,
      cpuModel: 'qemu64',
      managementNetwork: { name: `${runId}-mgmt`, address: '10.198.0.0/24' },
      serialLogDir: '/tmp',
    },
    bootTimeoutS: 600,
  };
}

/** One Host block per machine, shaped like `vagrant ssh-config`'s, every one reaching the test's sshd. */
function sshConfig(runId: string, roles: string[], port: number, key: string): string {
  return roles
    .map((role) =>
      [
        `Host ${runId}-${role}`,
        '  HostName 127.0.0.1',
        `  User ${userInfo().username}`,
        `  Port ${port}`,
        '  UserKnownHostsFile /dev/null',
        '  StrictHostKeyChecking no',
        '  PasswordAuthentication no',
        `  IdentityFile ${key}`,
        '  IdentitiesOnly yes',
        '  LogLevel FATAL',
        '',
      ].join('\n'),
    )
    .join('\n');
}

/** Run the CLI in `cwd`: its exit code, stdout and stderr (killed after 2 minutes, headroom for a loaded host). */
function cli(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_COMPILED, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

t.test('login and list-labs on a kept lab', { skip: !sshd }, async (t) => {
  const key = join(sshd!.dir, 'user_ed25519');
  const root = t.testdir({});
  const work = join(root, 'work');
  const roles = ['server', 'client-1', 'client-2'];
  mkdirSync(join(work, KEPT), { recursive: true });
  writeFileSync(join(work, KEPT, 'lab-spec.json'), JSON.stringify(labSpec(KEPT, roles)));
  writeFileSync(join(work, KEPT, 'ssh-config'), sshConfig(KEPT, roles, sshd!.port, key));
  mkdirSync(join(work, WARM));
  writeFileSync(join(work, WARM, 'lab-spec.json'), JSON.stringify(labSpec(WARM, ['server', 'client'])));
  const common = ['--work-dir', work, '--netns', ''];

  const kernel = execFileSync('uname', ['-r'], { encoding: 'utf8' });
  const listArgs = ['--work-dir', work, '--provider', 'virtualbox'];
  const [one, server, unknown, warm, badMachine, listed, text] = await Promise.all([
    cli(['login', KEPT, '--command', 'uname -r', ...common], root),
    cli(['login', KEPT, 'server', '--command', 'exit 7', ...common], root),
    cli(['login', 'rnothere0000', '--command', 'true', ...common], root),
    cli(['login', WARM, ...common], root),
    cli(['login', KEPT, 'client-9', ...common], root),
    cli(['list-labs', '--json', ...listArgs], root),
    cli(['list-labs', ...listArgs], root),
  ]);
  t.equal(one.code, 0, one.err);
  t.equal(one.out, kernel, "the command's output, nothing else on stdout");
  t.match(
    one.err,
    new RegExp(`login: client-1 \\(${KEPT}-client-1\\) of lab ${KEPT}: ssh -F \\S+/ssh-config ${KEPT}-client-1`),
  );
  t.equal(server.code, 7, "the command's exit code");
  t.match(server.err, new RegExp(`${KEPT}-server`), 'the machine named');

  t.equal(unknown.code, 2, 'an unknown id: exit 2');
  t.match(unknown.err, /no lab for run id rnothere0000/);
  t.match(unknown.err, new RegExp(`kept labs under \\S+: ${KEPT}`), 'naming the kept labs');
  t.equal(warm.code, 2, 'a warm lab is not a kept one: exit 2');
  t.match(warm.err, /warm lab, parked/);
  t.equal(badMachine.code, 2);
  t.match(badMachine.err, /machine: .*is not a machine of the lab.*server, client-1, client-2/s);

  t.equal(listed.code, 0, listed.err);
  const doc = JSON.parse(listed.out) as { labs: Record<string, unknown>[] };
  t.match(doc.labs, [
    { id: KEPT, kind: 'kept', topology: '1+2', machines: ['server', 'client-1', 'client-2'] },
    { id: WARM, kind: 'warm', topology: '1+1', machines: ['server', 'client'] },
  ]);
  t.ok(
    doc.labs.every((l) => typeof l['ageS'] === 'number'),
    'each with its age',
  );
  t.match(
    text.out,
    new RegExp(`^ID +KIND +AGE +TOPOLOGY +MACHINES +DIR\\n${KEPT} +kept +\\d+s +1\\+2 +server,client-1,client-2 `),
  );
  t.match(text.out, /login <id>/);
});

t.test('login on lab.provider ssh hosts, with their user, port and key', { skip: !sshd }, async (t) => {
  const key = join(sshd!.dir, 'user_ed25519');
  const host = `{ address: 127.0.0.1, user: ${userInfo().username}, key: ${key}, port: ${sshd!.port} }`;
  const root = t.testdir({
    'harness.yaml': `lab:\n  provider: ssh\n  hosts:\n    server: ${host}\n    client: ${host}\n`,
  });
  const r = await cli(['login', 'any-run', '--command', 'echo reached $USER'], root);
  t.equal(r.code, 0, r.err);
  t.equal(r.out, `reached ${userInfo().username}\n`);
  t.match(r.err, /login: client \(127\.0\.0\.1\): ssh .*-i \S+user_ed25519 .*-p \d+ /);
});

t.test('login of a kept lab whose bring-up never finished says how to remove it, not to keep one (Q96)', async (t) => {
  const root = t.testdir({});
  const work = join(root, 'work');
  mkdirSync(join(work, 'rhalf0000000'), { recursive: true });
  writeFileSync(
    join(work, 'rhalf0000000', 'lab-spec.json'),
    JSON.stringify(labSpec('rhalf0000000', ['server', 'client'])),
  );
  const r = await cli(['login', 'rhalf0000000', '--work-dir', work, '--netns', ''], root);
  t.equal(r.code, 2, r.err);
  t.match(r.err, /lab rhalf0000000 has no ssh-config: its bring-up never finished/);
  // the work dir it was found in named too (Q424)
  t.match(r.err, `reboot-harness destroy rhalf0000000 --work-dir ${work} --netns '' removes them`);
  t.notMatch(r.err, /run with --keep \(or --keep on-failure\) to keep one/, 'it was kept');
});
