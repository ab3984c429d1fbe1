// The CLI's eighteenth adversarial pass (docs/cli-defects.md, rows Q186 on), through the real CLI: a FIFO, a socket or a
// device among the files a matrix that failed to plan still reads from its `defaults:` (its known-issue file held the
// command past SIGTERM), and a credentials file in JSON or .netrc shape given by mistake as an input. The lines that
// name a FIFO are CLI children (a read that never ends would hold the test's process; the child is killed after 30 s);
// the others run main() in the test's process (test/helpers/cli-no-lab.ts), in their folder as the CLI's working
// directory.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cliIn } from '../helpers/cli-in.js';
import { noLabLines } from '../helpers/cli-no-lab.js';

/** main() in `dir` as the CLI child there ran it: its work and cache dirs inside, CI=true. */
const cliAt = (dir: string) =>
  noLabLines(
    dir,
    { HOME: dir, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
    { labless: true, realChecks: true, chdir: true },
  );

t.setTimeout(3 * 60_000);

t.test(
  "a FIFO or a device in a failed matrix's defaults is told with the file's problems, not read (Q186)",
  async (t) => {
    const dir = t.testdir({
      'm.yaml': [
        'scenario: rolling-reboot',
        'parallel: 99',
        'defaults:',
        '  known_issues_file: ./issues',
        '  job: { file: ./job }',
        '  builds: { releases_key: /dev/zero }',
        '',
      ].join('\n'),
    });
    for (const f of ['issues', 'job']) execFileSync('mkfifo', [join(dir, f)]);
    const res = cliIn(dir)('matrix', 'm.yaml', '--plan', '--netns', '');
    t.equal(res.signal, null, 'the command ends by itself');
    t.equal(res.status, 2);
    t.match(res.stderr, /m\.yaml: parallel: must be a whole number/);
    t.match(res.stderr, /known_issues_file: is a named pipe \(FIFO\)/, 'the known-issue file told, not read');
    t.match(res.stderr, /job\.file \(--job\): is a named pipe \(FIFO\)/, 'the job told with the rest');
    t.match(res.stderr, /--releases-key: is a character device/, 'the release key too');
  },
);

t.test(
  'a credentials file in JSON, docker or .netrc shape given by mistake shows no secret of it (Q187)',
  async (t) => {
    const dir = t.testdir({
      'creds.json': '{"aws_secret_access_key": "wJalrXUtnFEMIK7MDENG", "region": "eu-1"}\n',
      'docker.json': '{"auths": {"registry.example.com": {"auth": "Ym9iOmh1bnRlcjJ4eXo="}}}\n',
      netrc: 'machine github.com login bob password hunter2-netrc\n',
      'creds.yaml': 'github_token: ghp_yamlSecret0123\n',
    });
    const cli = cliAt(dir);
    for (const args of [
      ['run', '--nomad', './nope', '--plan', '--netns', '', '--known-issues-file', 'creds.json'],
      ['run', '--nomad', './nope', '--plan', '--netns', '', '--known-issues-file', 'docker.json'],
      ['run', '--nomad', './nope', '--plan', '--netns', '', '--known-issues-file', 'creds.yaml'],
      ['run', '--nomad', './nope', '--plan', '--netns', '', '--known-issues-file', 'netrc'],
      ['run', 'rolling-reboot', '--nomad', './nope', '--plan', '--netns', '', '--faults', 'netrc'],
      ['matrix', 'netrc', '--plan', '--netns', ''],
    ]) {
      const res = await cli(...args);
      t.equal(res.status, 2, args.join(' '));
      t.notMatch(
        res.stderr,
        /wJalrXUtnFEMI|Ym9iOmh1bnRlcjJ4eXo|hunter2-netrc|ghp_yamlSecret/,
        `${args.join(' ')}: no secret`,
      );
      t.match(res.stderr, /\[REDACTED\]/, 'the place of the secret is shown');
    }
  },
);

t.test("report paths from a matrix's defaults are named by the file, not as defaults (Q190)", async (t) => {
  const dir = t.testdir({
    'm.yaml':
      'scenario: rolling-reboot\naxes:\n  nomad: [{ name: a, binary: ./nope }]\ndefaults:\n  reports:\n    junit: x.xml\n    json: x.xml\n',
  });
  const res = await cliAt(dir)('matrix', 'm.yaml', '--plan', '--netns', '');
  t.equal(res.status, 2);
  t.match(res.stderr, /m\.yaml: defaults: reports\.junit \/ m\.yaml: defaults: reports\.json: name the same file/);
});

t.test("a failed matrix's report paths from its defaults are checked with the file's problems (Q191)", async (t) => {
  const dir = t.testdir({
    'm.yaml': 'scenario: rolling-reboot\nparallel: 99\ndefaults:\n  reports:\n    junit: x.xml\n    json: x.xml\n',
  });
  const res = await cliAt(dir)('matrix', 'm.yaml', '--plan', '--netns', '');
  t.equal(res.status, 2);
  t.match(res.stderr, /m\.yaml: parallel: must be a whole number/);
  t.match(res.stderr, /m\.yaml: defaults: reports\.junit \/ m\.yaml: defaults: reports\.json: name the same file/);
});

t.test(
  "bisect --replay that cannot be replayed is told with the line's own problems, in one exit 2 (Q188)",
  async (t) => {
    const dir = t.testdir({ empty: '' });
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const child = cliIn(dir);
    const inProcess = cliAt(dir);
    const line = ['bisect', 'rolling-reboot', '--good', 'v1', '--bad', 'v2', '--check', 'task-dirs'];
    for (const [replay, said] of [
      ['nope.jsonl', /--replay: does not exist/],
      ['pipe', /--replay: is a named pipe \(FIFO\), not a file/],
      ['empty', /--replay: is no bisect log/],
    ] as const) {
      const argv = [...line, '--source', 'git:/nonexistent', '--tries', '0', '--replay', replay];
      const r = replay === 'pipe' ? child(...argv) : await inProcess(...argv);
      t.equal(r.status, 2, `${replay}: exit 2`);
      t.match(r.stderr, said, `${replay}: the replay's problem`);
      t.match(r.stderr, /--tries: /, `${replay}: --tries told with it`);
      t.match(r.stderr, /--source: /, `${replay}: --source told with it`);
    }
  },
);
