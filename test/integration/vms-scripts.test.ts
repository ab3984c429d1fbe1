// The zx scripts of vms/ run as the harness runs them (this Node, tsx from node_modules): the box's recipe hash and
// --check against a real Vagrant box folder, and bad input refused all at once with exit 2 before anything is made.
import t from 'tap';
import { $ } from 'zx';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TSX_LOADER } from '../../lib/exec/tsx.js';
import { boxConfig, boxDir, recipeHash, RECIPE_FILES } from '../../vms/build-box.js';

// Each case starts node + tsx a few times (2-4 s each on a loaded 2-core host).
t.setTimeout(180_000);
const ROOT = join(dirname(new URL(import.meta.url).pathname), '../..');
/** Run a vms/ script with this Node and tsx, never throwing; env replaces the listed variables. */
const script = (name: string, args: string[], env: Record<string, string> = {}) => {
  const run = $({ cwd: ROOT, quiet: true, nothrow: true, env: { ...process.env, ...env } });
  return run`${process.execPath} --import ${TSX_LOADER} ${join('vms', name)} ${args}`;
};

t.test('build-box.ts --print-hash and --check read the recipe and the added box', async (t) => {
  const home = t.testdir({});
  const env = { VAGRANT_HOME: join(home, '.vagrant.d'), HOME: home };
  const texts = RECIPE_FILES.map((f) => readFileSync(f, 'utf8'));
  const want = recipeHash(texts, boxConfig(false, { ...process.env, ...env }));
  // Note: the three runs that read and write nothing go side by side (each a node + tsx start of its own)
  const [printed, docker, missing] = await Promise.all([
    script('build-box.ts', ['--print-hash'], env),
    script('build-box.ts', ['--print-hash', '--docker'], env),
    script('build-box.ts', ['--check'], env),
  ]);
  t.equal(printed.exitCode, 0);
  t.equal(printed.stdout.trim(), want);
  t.not(docker.stdout.trim(), want, 'the Docker box has its own hash');
  t.equal(missing.exitCode, 1, 'no box added: a build is needed');
  t.match(missing.stdout, `box nomad-reboot-harness/bookworm missing or stale (have '', want ${want})`);

  const dir = boxDir(boxConfig(false, { ...process.env, ...env }));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'recipe.sha256'), 'an-older-recipe\n');
  t.equal((await script('build-box.ts', ['--check'], env)).exitCode, 1, 'a stale box');
  writeFileSync(join(dir, 'recipe.sha256'), `${want}\n`);
  const current = await script('build-box.ts', ['--check'], env);
  t.equal(current.exitCode, 0);
  t.match(current.stdout, `box nomad-reboot-harness/bookworm is current (${want})`);
});

t.test('unknown arguments: each named with the allowed ones, exit 2', async (t) => {
  // Started by a script that began 65 s ago (.ci/run): the step times continue its clock.
  const parentStart = { NRH_STEPS_STARTED_MS: String(Date.now() - 65_000) };
  const [r, s, help] = await Promise.all([
    script('build-box.ts', ['--bogus', '--nope']),
    script('setup-host.ts', ['--no-box', '--nope'], parentStart),
    script('setup-host.ts', ['--help']),
  ]);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /^build-box: 2 problems \(nothing was changed\)\n {2}- unknown argument: --bogus\n/m);
  t.match(r.stderr, /- unknown argument: --nope\n {4}fix: use only --docker, --force, --check, --print-hash/);
  t.equal(s.exitCode, 2);
  // Note: 1m05s plus however long the script takes to start on a loaded machine (15 s seen), never under a minute
  t.match(
    s.stdout,
    /^== \[1m[0-5]\ds\] prerequisites\n== \[1m[0-5]\ds\] FAIL prerequisites/m,
    'the steps go to stdout',
  );
  t.match(s.stderr, /^setup-host: prerequisites failed: unknown argument: --nope \(nothing was changed\)$/m);
  t.match(help.stdout, /^Usage: setup-host\.ts \[--no-box\] \[--force-box\] \[--docker-box\]$/m);
  t.match(help.stdout, /^Exit codes: 0 done, 1 a step failed, 2 /m);
});

t.test('build-box.ts checks every prerequisite before it creates anything', async (t) => {
  const home = t.testdir({ bin: {} });
  const work = join(home, 'work');
  // Only node and bash on PATH (zx runs commands with bash): none of the host tools is found.
  symlinkSync(process.execPath, join(home, 'bin', 'node'));
  symlinkSync('/bin/bash', join(home, 'bin', 'bash'));
  const env = {
    PATH: join(home, 'bin'),
    VAGRANT_HOME: join(home, '.vagrant.d'),
    WORK: work,
    CNI_CACHE: join(home, 'cni'),
    DISK_GB: 'x',
  };
  const r = await script('build-box.ts', ['--force'], env);
  t.equal(r.exitCode, 2, r.stderr);
  t.match(r.stderr, /^build-box: prerequisites of the box nomad-reboot-harness\/bookworm failed: \d+ problems/m);
  for (const cmd of ['debootstrap', 'qemu-img', 'mkfs.ext4', 'vagrant', 'chroot', 'modinfo', 'tar', 'install'])
    t.match(r.stderr, `- missing ${cmd} on PATH\n    fix: sudo npx tsx vms/setup-host.ts --no-box`);
  t.match(r.stderr, '- DISK_GB=NaN is not a size in GB');
  t.notOk(existsSync(work), 'the work folder was not made');
});
