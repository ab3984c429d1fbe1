// lab.provider ssh, the run breaks while reaching the hosts: one host answers (a real sshd on 127.0.0.1, its key
// authorized) and the other refuses the key. The CLI, run as a person runs it, must end right after its verdict: the
// host that answered kept an SSH connection (and ssh2's keepalive timer) open, and the process lingered until the
// 10 s exit grace named them ("still open 10 s after the command ended").
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sshdForTest } from '../helpers/sshd.js';
import { CLI } from '../helpers/cli-child.js';

const sshd = await sshdForTest(t);

/** Seconds from the verdict line to the process's exit that count as prompt (the exit grace is 10 s). */
const PROMPT_S = 5;

t.test('a host that answered does not keep the CLI alive after the run broke', { skip: !sshd }, async (t) => {
  const root = t.testdir({});
  const other = join(root, 'other_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
  const host = (key: string) => `{ address: 127.0.0.1, user: ${sshd!.target.user}, key: ${key}, port: ${sshd!.port} }`;
  const yaml = `lab:\n  provider: ssh\n  hosts:\n    clients:\n      - ${host(join(sshd!.dir, 'user_ed25519'))}\n      - ${host(other)}\n`;
  writeFileSync(join(root, 'harness.yaml'), yaml);
  // Note: --timeout bounds the wait for the refusing host (its own budget is a minute), so the test takes seconds.
  const args = ['run', 'cni-ipam-reboot', '--clients', '2', '--netns', '', '--timeout', '12s'];
  const child = spawn(process.execPath, [CLI, ...args, '--reports-dir', join(root, 'reports')], {
    cwd: root,
    env: { ...process.env, CI: 'true' },
  });
  let out = '';
  let err = '';
  let verdictAt: number | undefined;
  child.stdout.on('data', (b: Buffer) => {
    out += b;
    if (verdictAt === undefined && /^ERROR cni-ipam-reboot/m.test(out)) verdictAt = performance.now();
  });
  child.stderr.on('data', (b: Buffer) => {
    err += b;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const exitAt = performance.now();
  t.equal(code, 3, `exit 3: the run broke reaching a host\n${out}${err}`);
  t.match(out + err, /lab\.hosts\.clients\[1\]\.address: .* is not reachable over SSH/, 'the refusing host is named');
  t.ok(verdictAt !== undefined, 'the verdict line was printed');
  const s = (exitAt - verdictAt!) / 1000;
  t.ok(s < PROMPT_S, `the process exited ${s.toFixed(1)} s after its verdict (< ${PROMPT_S} s)`);
  t.notMatch(err, /still open/, 'nothing was left open');
});
