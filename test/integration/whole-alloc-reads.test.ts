// The whole-alloc host reads run for real on this host (sh, findmnt, grep, stat, nsenter, ip): against a directory tree
// shaped like a client's alloc dir, a process started with a task's environment (and a secret in it), and processes
// shaped like Nomad's plugins. The commands are the ones the scenario sends over SSH; only the host differs.
import t, { type Test } from 'tap';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isOwnTmpfs, parseTaskDirs, taskDirsCommand } from '../../lib/parse/task-dir-mounts.js';
import { parseTaskProcs, TASK_PROCS_COMMAND } from '../../lib/parse/task-procs.js';
import { agentSamplesCommand, parseAgentSamples } from '../../lib/parse/agent-samples.js';

const has = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const tools = ['findmnt', 'stat', 'grep'].every(has) ? false : 'needs findmnt, stat and grep (util-linux, coreutils)';
const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { encoding: 'utf8' });
const ALLOC = '0b5e55ed-6a05-4c1e-9d11-7e2f3a4b5c6d';

/** A child that lives until the test ends. */
function keep(t: Test, child: ChildProcess): ChildProcess {
  t.teardown(() => void child.kill('SIGKILL'));
  return child;
}

t.test('taskDirsCommand: each task directory with the filesystem holding it', { skip: tools }, async (t) => {
  const root = t.testdir({});
  const allocDir = join(root, 'alloc');
  for (const d of ['web/secrets', 'web/private', 'web/local']) mkdirSync(join(allocDir, ALLOC, d), { recursive: true });
  mkdirSync(join(allocDir, ALLOC, 'alloc', 'logs'), { recursive: true });
  const dirs = parseTaskDirs(sh(taskDirsCommand(allocDir)), allocDir);
  t.same(
    dirs.map((d) => `${d.allocId} ${d.task} ${d.dir}`),
    [`${ALLOC} web secrets`, `${ALLOC} web private`],
    'secrets/ and private/ only',
  );
  const holding = sh(`findmnt -n -o TARGET -T ${root}`).trim();
  t.ok(
    dirs.every((d) => d.target === holding && !isOwnTmpfs(d)),
    `plain directories: held by ${holding}, no tmpfs of their own`,
  );
  t.same(
    parseTaskDirs(sh(taskDirsCommand(join(root, 'nothing-here'))), join(root, 'nothing-here')),
    [],
    'an empty or missing alloc dir lists nothing',
  );
});

t.test(
  'taskDirsCommand on a real tmpfs (a private mount namespace)',
  {
    skip:
      tools ||
      (process.getuid?.() !== 0 ? 'needs root (unshare -m, mount)' : !has('unshare') ? 'needs unshare' : false),
  },
  async (t) => {
    const allocDir = join(t.testdir({}), 'alloc');
    mkdirSync(join(allocDir, ALLOC, 'web', 'secrets'), { recursive: true });
    const secrets = join(allocDir, ALLOC, 'web', 'secrets');
    const out = execFileSync(
      'unshare',
      [
        '-m',
        'sh',
        '-c',
        `mount --make-rprivate / && mount -t tmpfs -o size=1024k,noexec tmpfs ${secrets} && ${taskDirsCommand(allocDir)}`,
      ],
      { encoding: 'utf8' },
    );
    const [d] = parseTaskDirs(out, allocDir);
    t.match(d, { dir: 'secrets', target: secrets, fstype: 'tmpfs', options: /size=1024k/ });
    t.ok(isOwnTmpfs(d!));
  },
);

t.test(
  'TASK_PROCS_COMMAND: a task process by its environment, only its identity and network variables read',
  { skip: tools },
  async (t) => {
    const secret = 'not-for-the-report-7f3a9c';
    const child = keep(
      t,
      spawn('sleep', ['60'], {
        stdio: 'ignore',
        env: {
          PATH: process.env['PATH'],
          NOMAD_ALLOC_ID: ALLOC,
          NOMAD_TASK_NAME: 'web',
          NOMAD_ALLOC_IP_http: '172.26.64.2',
          NOMAD_ALLOC_ADDR_http: '172.26.64.2:80',
          NOMAD_ALLOC_PORT_http: '80',
          NOMAD_TOKEN: secret,
          APP_SECRET: secret,
        },
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    const out = sh(TASK_PROCS_COMMAND);
    t.notMatch(out, secret, 'no other variable left the host');
    const p = parseTaskProcs(out).processes.find((x) => x.pid === child.pid);
    t.match(p, {
      allocId: ALLOC,
      task: 'web',
      comm: 'sleep',
      allocNetEnv: {
        NOMAD_ALLOC_IP_http: '172.26.64.2',
        NOMAD_ALLOC_ADDR_http: '172.26.64.2:80',
        NOMAD_ALLOC_PORT_http: '80',
      },
    });
    t.equal(Object.keys(p!.allocNetEnv).length, 3);
    t.equal(p!.netns, sh('stat -L -c %i /proc/self/ns/net').trim(), "its namespace: this host's");
    t.equal(p!.etcHosts.exists, true, "its /etc/hosts (the host's, through /proc/<pid>/root)");
  },
);

t.test(
  'agentSamplesCommand: samples over a window; plugin processes counted by their subcommand, not grep itself',
  { skip: tools },
  async (t) => {
    // Note: argv [sh, -c, "sleep 60", executor] looks like `nomad executor` to the count (an argument that is exactly the word)
    keep(t, spawn('sh', ['-c', 'sleep 60', 'executor'], { stdio: 'ignore' }));
    keep(t, spawn('sh', ['-c', 'sleep 60', 'agent'], { stdio: 'ignore' }));
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    const samples = parseAgentSamples(sh(agentSamplesCommand(3, 0.2)));
    t.equal(samples.length, 3);
    t.ok(
      samples.every((s) => s.pid > 0 && s.fds > 0),
      'an agent found (the unit, else an `agent` argument) with its fds',
    );
    t.ok(
      samples.every((s) => s.executors >= 1),
      'the executor-shaped process counted',
    );
    t.ok(
      samples[2]!.atMs - samples[0]!.atMs >= 300 && samples[0]!.atMs >= t0 - 5_000,
      'spread over the window, on this clock',
    );
  },
);
