// `reboot-harness build` end to end through main(): a release from a loopback mirror, a path, bad specs, --json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { main, type CliDeps } from '../../lib/cli/main.js';
import { BUILD_JSON_SCHEMA } from '../../lib/cli/build.js';
import { mirrorPrereqs, publish, startMirror, testKey, testNomad } from '../helpers/release-mirror.js';

const skip = mirrorPrereqs();

function cli(env: Record<string, string>, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const deps: CliDeps = {
    env: { PATH: process.env['PATH'] ?? '', ...env }, cwd, isTTY: false,
    out: (s) => void out.push(s), err: (s) => void err.push(s),
    makeEnv: () => { throw new Error('build must not make a lab'); },
    prepareHost: async () => { throw new Error('build must not prepare the host'); },
  };
  return { run: (...argv: string[]) => main(argv, deps), out: () => out.join(''), err: () => err.join('') };
}

t.test('reboot-harness build', { skip: skip ?? false }, async (t) => {
  t.setTimeout(120_000);
  const dir = t.testdir();
  const key = testKey(join(dir, 'key'));
  t.teardown(() => key.stop());
  const local = testNomad(join(dir, 'bin'), '1.9.5', '5555555555555555555555555555555555555555');
  const b193 = readFileSync(testNomad(join(dir, 'bin'), '1.9.3', 'd92bf10'));
  const mirror = await startMirror({ '1.9.3': publish('1.9.3', b193, key) }, ['1.9.2', '1.9.4']);
  t.teardown(mirror.stop);
  const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg'), NOMAD_RELEASES_URL: mirror.url,
    NOMAD_RELEASES_KEY: key.pubFile };

  await t.test('a release version and a path: path, sha256, version, revision, origin of each', async (t) => {
    const c = cli(env, dir);
    t.equal(await c.run('build', '1.9.3', './bin/nomad-1.9.5'), 0, c.err());
    const cached = join(dir, 'xdg', 'nomad-reboot-harness', 'builds');
    const zip = `${mirror.url}/nomad/1\\.9\\.3/nomad_1\\.9\\.3_linux_amd64\\.zip`;
    t.match(c.out(), new RegExp(`^1\\.9\\.3\\n  path      ${cached}/[0-9a-f]{64}/nomad\\n  sha256    [0-9a-f]{64}\\n`
      + `  version   1\\.9\\.3\\n  revision  d92bf10\\n`
      + `  origin    release ${zip} \\(checksum and signature verified\\)\\n`));
    t.match(c.out(), `./bin/nomad-1.9.5\n  path      ${local}\n`);
    t.match(c.out(), `  origin    path ${local}\n`);
    t.match(c.err(), /1\.9\.3: downloading Nomad 1\.9\.3 from http:\/\/127\.0\.0\.1/, 'progress on stderr');
  });

  await t.test('--json: every build with its report properties', async (t) => {
    const c = cli(env, dir);
    t.equal(await c.run('build', '1.9.3', '--json'), 0, c.err());
    const doc = JSON.parse(c.out()) as { schema: string; builds: Record<string, unknown>[] };
    t.equal(doc.schema, BUILD_JSON_SCHEMA);
    t.match(doc.builds, [{ ok: true, spec: '1.9.3', version: '1.9.3', revision: 'd92bf10', origin: { kind: 'release' },
      properties: { 'nomad.build.origin': /checksum and signature verified/,
        'nomad.build.sha256': /^[0-9a-f]{64}$/ } }]);
    t.equal(mirror.count('.zip'), 1, 'the second resolve of 1.9.3 came from the cache');
  });

  await t.test('bad specs are all reported: plan problems at once (exit 2), nothing resolved', async (t) => {
    // Note: outside any repository (the test dir sits inside this repository's work tree).
    const plain = mkdtempSync(join(tmpdir(), 'nrh-not-git-'));
    t.teardown(() => rmSync(plain, { recursive: true, force: true }));
    const c = cli(env, dir);
    t.equal(await c.run('build', '1.9', './nope', `git:${plain}`, '1.9.3'), 2);
    t.match(c.err(), /invalid configuration \(3 problems\)/);
    t.match(c.err(), /build spec 1: looks like a release version but is not a full one/);
    t.match(c.err(), /build spec 2: no file at .*\/nope/);
    t.match(c.err(), /build spec 3: .* is not a git repository/);
    t.equal(c.out(), '');
  });

  await t.test('failures while resolving: each named, the good ones printed, exit 2', async (t) => {
    const c = cli(env, dir);
    t.equal(await c.run('build', '/bin/true', '1.9.3', '1.9.99'), 2);
    t.match(c.out(), /\/bin\/true\n  FAILED    .*`version` printed nothing/);
    t.match(c.out(), /1\.9\.3\n  path /);
    t.match(c.err(), /build spec 1: \/bin\/true: `version` printed nothing, not "Nomad v<version>"/);
    t.match(c.err(), /build spec 3: no release 1\.9\.99 at .*nearest published versions: 1\.9\.4, 1\.9\.3, 1\.9\.2/);
  });

  await t.test('the releases site unreachable: exit 3 naming --releases-url and local builds', async (t) => {
    const down = await startMirror({});
    await down.stop();
    const c = cli({ ...env, XDG_CACHE_HOME: join(dir, 'xdg-empty') }, dir);
    t.equal(await c.run('build', '1.9.3', '--releases-url', down.url), 3);
    t.match(c.err(), /cannot reach the releases site .*ECONNREFUSED/);
    t.match(c.err(), /hint: point --releases-url \(NOMAD_RELEASES_URL\) at a reachable mirror/);
  });

  await t.test('a source tree that is not Nomad, no spec, bad URL, help', async (t) => {
    const repo = join(dir, 'repo');
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'go.mod'), 'module example.test/x\n\ngo 1.21\n');
    execFileSync('git', ['-C', repo, 'add', 'go.mod']);
    execFileSync('git', ['-C', repo, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'x']);
    const c = cli(env, dir);
    t.equal(await c.run('build', 'git:repo'), 2);
    t.match(c.err(), /is not a Nomad source tree: go\.mod's module is example\.test\/x/);
    const none = cli(env, dir);
    t.equal(await none.run('build'), 2);
    t.match(none.err(), /build spec: is required/);
    const url = cli(env, dir);
    t.equal(await url.run('build', '1.9.3', '--releases-url', 'ftp://mirror'), 2);
    t.match(url.err(), /--releases-url: must be an http\(s\) URL/);
    const help = cli(env, dir);
    t.equal(await help.run('build', '--help'), 0);
    t.match(help.out(), /Usage: reboot-harness build <spec>\.\.\./);
    t.match(help.out(), /--releases-key <value>.*\[env NOMAD_RELEASES_KEY\]/);
  });
});
