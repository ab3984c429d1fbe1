// examples/ci/fetch-nomad.sh, the CI templates' build fetcher, against a release mirror on loopback laid out like
// releases.hashicorp.com, with real gpg: a throwaway key stands in for HashiCorp's (its fingerprint pinned through
// HASHICORP_KEY_FPR, as the real one is by default). It installs a build whose signature and sha256 check out, and
// refuses a SHA256SUMS signed by another key and a zip that does not match its line.
import t, { type Test } from 'tap';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = resolve(fileURLToPath(new URL('../../examples/ci/fetch-nomad.sh', import.meta.url)));
const tools = ['gpg', 'gpgv', 'curl', 'zip', 'unzip'].filter(
  (c) => spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0,
);
const missing = tools.length ? `missing: ${tools.join(', ')} (apt-get install -y gnupg curl zip unzip)` : false;

/**
 * A fresh key in its own GNUPGHOME: its fingerprint and armored public key. Note: the home is a short path under
 * the temp folder (gpg-agent's socket path must fit in 108 bytes); its agent is stopped and the folder removed at
 * teardown.
 */
function makeKey(t: Test, name: string): { home: string; fpr: string; pub: string } {
  const home = mkdtempSync(join(tmpdir(), `nrh-gpg-${name}-`));
  t.teardown(() => {
    spawnSync('gpgconf', ['--homedir', home, '--kill', 'gpg-agent']);
    rmSync(home, { recursive: true, force: true });
  });
  const gpg = (args: string[]) =>
    execFileSync('gpg', ['--batch', '--homedir', home, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  gpg(['--passphrase', '', '--quick-gen-key', `${name} <${name}@example.invalid>`, 'ed25519', 'sign', 'never']);
  const fpr = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(['--with-colons', '--fingerprint', name]))![1]!;
  return { home, fpr, pub: gpg(['--armor', '--export', fpr]) };
}

/** Lay out nomad/<v>/ like the releases site: zip, SHA256SUMS, its detached signature by `signer`. */
function release(root: string, v: string, signer: { home: string }, o: { tamper?: boolean } = {}): void {
  const dir = join(root, 'nomad', v);
  mkdirSync(dir, { recursive: true });
  const stage = join(root, `stage-${v}`);
  mkdirSync(stage);
  writeFileSync(join(stage, 'nomad'), `#!/bin/sh\necho "Nomad v${v}"\n`, { mode: 0o755 });
  const zip = `nomad_${v}_linux_amd64.zip`;
  execFileSync('zip', ['-q', '-j', join(dir, zip), join(stage, 'nomad')]);
  const sha = createHash('sha256')
    .update(readFileSync(join(dir, zip)))
    .digest('hex');
  writeFileSync(join(dir, `nomad_${v}_SHA256SUMS`), `${sha}  ${zip}\n${'0'.repeat(64)}  nomad_${v}_darwin_arm64.zip\n`);
  execFileSync('gpg', [
    '--batch',
    '--homedir',
    signer.home,
    '--detach-sign',
    '-o',
    join(dir, `nomad_${v}_SHA256SUMS.sig`),
    join(dir, `nomad_${v}_SHA256SUMS`),
  ]);
  if (o.tamper) writeFileSync(join(dir, zip), Buffer.concat([readFileSync(join(dir, zip)), Buffer.from('x')]));
}

/** Run the script without blocking this process (the mirror answers from it); exit status and output. */
function script(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('bash', [SCRIPT, ...args], { encoding: 'utf8', env, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function serve(t: Test, root: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    const path = join(root, decodeURIComponent((req.url ?? '/').split('?')[0]!));
    if (!path.startsWith(root) || !existsSync(path)) return void res.writeHead(404).end('not found');
    res.writeHead(200).end(readFileSync(path));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

t.test('fetch-nomad.sh verifies signature and sha256 before it installs a build', { skip: missing }, async (t) => {
  const dir = t.testdir();
  const mirror = join(dir, 'mirror');
  const release_ = makeKey(t, 'release');
  const other = makeKey(t, 'other');
  writeFileSync(join(dir, 'key.asc'), release_.pub);
  mkdirSync(mirror);
  release(mirror, '1.9.7', release_);
  release(mirror, '1.9.3', other);
  release(mirror, '1.9.5', release_, { tamper: true });
  const base = await serve(t, mirror);
  const keyUrl = `${await serve(t, dir)}/key.asc`;
  const env = {
    ...process.env,
    NOMAD_RELEASES_URL: base,
    HASHICORP_KEY_URL: keyUrl,
    HASHICORP_KEY_FPR: release_.fpr,
    http_proxy: '',
    https_proxy: '',
  };
  const fetch = (dest: string, ...versions: string[]) => script([dest, ...versions], env);

  const ok = await fetch(join(dir, 'builds'), '1.9.7');
  t.equal(ok.status, 0, ok.stderr);
  t.equal(
    execFileSync(join(dir, 'builds', 'nomad-1.9.7'), { encoding: 'utf8' }),
    'Nomad v1.9.7\n',
    'the build from the zip, executable',
  );
  t.match(ok.stdout, `signature by ${release_.fpr}`);
  t.match((await fetch(join(dir, 'builds'), '1.9.7')).stdout, /already there/, 'a build already there is kept');

  const wrongKey = await fetch(join(dir, 'b2'), '1.9.3');
  t.equal(wrongKey.status, 1);
  t.match(wrongKey.stderr, `nomad 1.9.3: SHA256SUMS is not signed by ${release_.fpr}`);
  t.notOk(existsSync(join(dir, 'b2', 'nomad-1.9.3')), 'nothing installed');

  const tampered = await fetch(join(dir, 'b3'), '1.9.5');
  t.equal(tampered.status, 1);
  t.match(
    tampered.stderr,
    /nomad 1\.9\.5: nomad_1\.9\.5_linux_amd64\.zip sha256 [0-9a-f]{64}, SHA256SUMS says '[0-9a-f]{64}'/,
  );
  t.notOk(existsSync(join(dir, 'b3', 'nomad-1.9.5')));

  const pinnedElsewhere = await script([join(dir, 'b4'), '1.9.7'], { ...env, HASHICORP_KEY_FPR: other.fpr });
  t.equal(pinnedElsewhere.status, 1, 'the key at the URL is not the pinned one');
  t.match(pinnedElsewhere.stderr, `holds no key with fingerprint ${other.fpr}`);
  t.equal((await fetch(join(dir, 'b5'), '1.9;rm')).status, 2, 'a version that is not one is refused');
});

t.test('fetch-nomad.sh passes shellcheck', async (t) => {
  if (spawnSync('sh', ['-c', 'command -v shellcheck']).status !== 0) {
    return void t.pass('shellcheck', {
      skip: 'shellcheck is not installed (apt-get install -y shellcheck; .ci/run does it)',
    });
  }
  const r = spawnSync('shellcheck', [SCRIPT], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stdout);
});
