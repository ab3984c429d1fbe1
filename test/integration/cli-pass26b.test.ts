// The CLI's twenty-sixth adversarial pass, part B (docs/cli-defects.md, rows Q420 on): bash completion of lab ids
// whose folder names are shell syntax, as readline puts them on the line, and a failed cell re-run with the command
// it printed (the matrix file by its absolute path) merged beside its shards.
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { doctorNomadSpec } from '../../lib/cli/doctor.js';
import { bashCompleter, hasBash } from '../helpers/bash-completion.js';
import { noLabCli, noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

/**
 * The matrix runs of a test folder through main() in this process (its working directory the folder's while a line
 * runs, as a user's shell's), their labless user scenarios run to the verdict: a CLI child under tsx each cost about
 * 1.3 s of CPU, and what is judged here is what they write, not the process.
 */
const cliAt = (dir: string) =>
  noLabLines(
    dir,
    { HOME: dir, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
    { labless: true, realChecks: true, chdir: true },
  );

t.test(
  'bash completion of destroy/login: each lab id is offered quoted as it must stand on the line, so <Enter> runs nothing (Q420)',
  { skip: hasBash ? false : 'bash is not installed' },
  async (t) => {
    const dir = t.testdir({});
    const labs = ['r0abc1234', 'semi;touch PWNED', 'x$(touch PWNED)y', 'a b', 'nl\nid', '~root'];
    const complete = await bashCompleter(t, dir, labs);
    const all = complete('reboot-harness', 'destroy', '');
    t.same(
      all.map((x) => x.read),
      [...labs].sort((a, b) => a.localeCompare(b)),
      'the shell reads each inserted word back as the lab id',
    );
    t.ok(
      all.every((x) => x.words === 1),
      'each inserted word is one word: no ";" ends the command, no space splits an id',
    );
    t.equal(all.find((x) => x.read === 'semi;touch PWNED')?.inserted, 'semi\\;touch\\ PWNED', 'quoted on the line');
    t.same(
      complete('reboot-harness', 'login', 'x$').map((x) => x.read),
      ['x$(touch PWNED)y'],
      'a raw prefix matches',
    );
    t.same(
      complete('reboot-harness', 'destroy', 'x\\$').map((x) => x.read),
      ['x$(touch PWNED)y'],
      'a prefix typed quoted matches too',
    );
    t.notOk(existsSync(join(dir, 'PWNED')), 'nothing ran, at the <TAB> nor when the line was read');
  },
);

t.test(
  'a failed cell re-run with the command its shard printed (the matrix file by its absolute path), merged beside the shards: told as a re-run (Q421)',
  async (t) => {
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'bad.ts': lablessScenarioSource('bad', 'failed'),
        'ok.ts': lablessScenarioSource('ok', 'passed'),
      },
      ci: { 'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n' },
    });
    const cli = cliAt(dir);
    t.equal(
      (await cli('matrix', 'ci/m.yaml', '--shard', '1/2', '--reports-dir', 'reports/m-1', '--netns', '')).status,
      0,
    );
    t.equal(
      (await cli('matrix', 'ci/m.yaml', '--shard', '2/2', '--reports-dir', 'reports/m-2', '--netns', '')).status,
      1,
    );
    // the cell's repro.sh, run as written: it names the matrix file by its absolute path, reports under ./reports
    const run = readdirSync(join(dir, 'reports', 'm-2')).find((f) => /^r[0-9a-z]+$/.test(f))!;
    const repro = readFileSync(join(dir, 'reports', 'm-2', run, 'repro.sh'), 'utf8');
    t.match(repro, `matrix ${join(dir, 'ci', 'm.yaml')} --cell`, 'the repro names the file by its absolute path');
    const again = spawnSync('sh', [join(dir, 'reports', 'm-2', run, 'repro.sh')], {
      cwd: dir,
      env: { ...process.env, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
      encoding: 'utf8',
    });
    t.equal(again.status, 1, again.stderr);
    const rerun = readdirSync(join(dir, 'reports')).find((f) => f.startsWith('matrix-'))!;
    const m = noLabCli(dir);
    t.equal(await m.run('merge', 'reports', '--out', 'merged'), 2, m.out());
    t.notMatch(m.err(), /one cell ran on two runners|check the shard split/);
    t.match(m.err(), /the cell ran again with --cell \(run \w+, after run \w+ of ci\/m\.yaml\)/);
    t.match(m.err(), `leave the re-run out (reports/${rerun})`);
  },
);

t.test(
  "GitLab's layout: a cell re-run with --junit beside its folder, merged beside the shards: the fix names the re-run's JUnit file too (Q422)",
  async (t) => {
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'bad.ts': lablessScenarioSource('bad', 'failed'),
        'ok.ts': lablessScenarioSource('ok', 'passed'),
      },
      ci: { 'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n' },
    });
    const cli = cliAt(dir);
    const job = (dirName: string, ...sel: string[]) =>
      cli('matrix', 'ci/m.yaml', ...sel, '--netns', '', '--reports-dir', dirName, '--junit', `${dirName}/junit.xml`);
    t.equal((await job('reports/shard-1', '--shard', '1/2')).status, 0);
    t.equal((await job('reports/shard-2', '--shard', '2/2')).status, 1);
    t.equal((await job('reports/rerun', '--cell', 'bad/reboot=graceful')).status, 1);
    const rerun = readdirSync(join(dir, 'reports', 'rerun')).find((f) => f.startsWith('matrix-'))!;
    const m = noLabCli(dir);
    t.equal(await m.run('merge', 'reports', '--out', 'merged'), 2);
    t.match(m.err(), `leave the re-run out (reports/rerun/${rerun} and reports/rerun/junit.xml)`);
    t.match(
      m.err(),
      `read it on its own (reboot-harness merge reports/rerun/${rerun} reports/rerun/junit.xml --out merged-r`,
    );
    // the fix followed: both moved out of the inputs, the shards merge; the re-run read on its own
    mkdirSync(join(dir, 'aside'));
    renameSync(join(dir, 'reports', 'rerun', rerun), join(dir, 'aside', rerun));
    renameSync(join(dir, 'reports', 'rerun', 'junit.xml'), join(dir, 'aside', 'junit.xml'));
    const after = noLabCli(dir);
    t.equal(await after.run('merge', 'reports', '--out', 'merged'), 1, after.err());
    const alone = noLabCli(dir);
    t.equal(await alone.run('merge', `aside/${rerun}`, 'aside/junit.xml', '--out', 'merged-rerun'), 1, alone.err());
  },
);

t.test(
  'two matrix files with a cell of one name, merged together: told as two matrices, not one cell on two runners (Q423)',
  async (t) => {
    const matrix = 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n';
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'bad.ts': lablessScenarioSource('bad', 'failed'),
        'ok.ts': lablessScenarioSource('ok', 'passed'),
      },
      ci: { 'nightly.yaml': matrix, 'weekly.yaml': matrix },
    });
    const cli = cliAt(dir);
    t.equal((await cli('matrix', 'ci/nightly.yaml', '--reports-dir', 'reports/nightly', '--netns', '')).status, 1);
    t.equal((await cli('matrix', 'ci/weekly.yaml', '--reports-dir', 'reports/weekly', '--netns', '')).status, 1);
    const m = noLabCli(dir);
    t.equal(await m.run('merge', 'reports', '--out', 'merged'), 2);
    t.notMatch(m.err(), /one cell ran on two runners|check the shard split/);
    t.match(m.err(), /two matrix files \(ci\/nightly\.yaml and ci\/weekly\.yaml\) have a cell of this name/);
    t.match(m.err(), /fix: merge the reports of each matrix file on their own/);
    // each on its own merges
    const one = noLabCli(dir);
    t.equal(await one.run('merge', 'reports/nightly', '--out', 'merged-nightly'), 1, one.err());
  },
);

t.test(
  "login's hint to destroy a half-made lab: the id quoted and its work dir named, so the pasted command destroys that lab and runs nothing else (Q424)",
  { skip: hasBash ? false : 'bash is not installed' },
  async (t) => {
    const dir = t.testdir({});
    const work = join(dir, 'labs');
    const id = 'semi;touch PWNED';
    mkdirSync(join(work, id), { recursive: true });
    const machine = (name: string, role: string, ip: string) => ({ name, role, privateIp: ip });
    writeFileSync(
      join(work, id, 'lab-spec.json'),
      JSON.stringify({
        runId: id,
        box: 'b/x',
        provider: 'libvirt',
        cpus: 1,
        memoryMb: 512,
        machines: [machine('m-server', 'server', '10.199.0.10'), machine('m-client', 'client', '10.199.0.11')],
        privateNetwork: { name: 'n', subnet: '10.199.0.0/24' },
        libvirt: {
          driver: 'kvm',
          tbCacheMb: 0,
          cpuModel: 'host',
          managementNetwork: { name: 'm', address: '10.198.0.0/24' },
          serialLogDir: dir,
        },
        bootTimeoutS: 60,
      }),
    );
    const c = noLabCli(dir);
    t.equal(await c.run('login', id, '--work-dir', work, '--netns', ''), 2, c.out());
    const hint = /hint: its machines may be half made: (reboot-harness destroy .*) removes them/.exec(c.err())?.[1];
    t.ok(hint, c.err());
    // the words the shell reads from the pasted command
    const words = spawnSync('bash', ['-c', `set -- ${hint}; printf '%s\\0' "$@"`], { cwd: dir, encoding: 'utf8' });
    t.same(words.stdout.split('\0').slice(0, -1), [
      'reboot-harness',
      'destroy',
      id,
      '--work-dir',
      work,
      '--netns',
      '', // the namespace given (the host's network) is named too (Q600)
    ]);
    t.notOk(existsSync(join(dir, 'PWNED')));
  },
);

t.test(
  "merge's fix for a missing shard names the matrix file quoted, as it must stand in the command (Q424)",
  async (t) => {
    const file = 'ci/my $(touch PWNED) m.yaml';
    const dir = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'ok.ts': lablessScenarioSource('ok', 'passed') },
      ci: {
        'my $(touch PWNED) m.yaml':
          'scenario: [ok]\naxes:\n  reboot: [graceful, panic]\ndefaults:\n  scenarios_dir: usc\n',
      },
    });
    const cli = cliAt(dir);
    t.equal((await cli('matrix', file, '--shard', '1/2', '--reports-dir', 'reports/s1', '--netns', '')).status, 0);
    const m = noLabCli(dir);
    t.equal(await m.run('merge', 'reports', '--out', 'merged'), 2);
    t.match(m.err(), `(reboot-harness matrix 'ci/my $(touch PWNED) m.yaml' --list-cells --shards 2 lists`);
  },
);

t.test(
  "doctor's 'or now: reboot-harness build <spec>' quotes the spec as it must stand in the command (Q425)",
  async (t) => {
    const dir = t.testdir({ 'src dir': { 'go.mod': 'module github.com/hashicorp/nomad\n' } });
    const spec = `git:${join(dir, 'src dir')}`;
    const r = await doctorNomadSpec(spec, {
      field: '--nomad',
      cwd: dir,
      home: dir,
      cacheRoot: join(dir, 'cache'),
      releasesUrl: 'http://127.0.0.1:9/',
    });
    const detail = 'item' in r ? r.item.detail : '';
    const now = /or now: (reboot-harness build .*)\)$/.exec(detail)?.[1];
    t.ok(now, detail);
    const words = spawnSync('bash', ['-c', `set -- ${now}; printf '%s\\0' "$@"`], { cwd: dir, encoding: 'utf8' });
    t.same(words.stdout.split('\0').slice(0, -1), ['reboot-harness', 'build', spec], 'one spec, as given');
  },
);
