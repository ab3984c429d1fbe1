// Pure readers of what the releases site, gpgv, `nomad version`, Go and go.mod say, with real-shaped samples.
import t from 'tap';
import { indexUrl, parseReleaseIndex, releaseFiles, sha256For } from '../../lib/parse/release-index.js';
import { goAtLeast, parseGoMod, parseGpgvStatus, parseNomadVersion } from '../../lib/parse/go-tools.js';
import { compareVersions, latestVersion, nearestVersions } from '../../lib/parse/versions.js';
import { buildProperties, describeOrigin } from '../../lib/builds/provenance.js';
import { VERIFIED, type ResolvedBuild } from '../../lib/model/build.js';

t.test('the official layout', async (t) => {
  t.same(releaseFiles('https://releases.hashicorp.com/', '1.9.3'), {
    zip: 'https://releases.hashicorp.com/nomad/1.9.3/nomad_1.9.3_linux_amd64.zip',
    zipName: 'nomad_1.9.3_linux_amd64.zip',
    sums: 'https://releases.hashicorp.com/nomad/1.9.3/nomad_1.9.3_SHA256SUMS',
    sig: 'https://releases.hashicorp.com/nomad/1.9.3/nomad_1.9.3_SHA256SUMS.sig',
  });
  t.equal(
    releaseFiles('https://m.example/art', '1.9.3+ent').zip,
    'https://m.example/art/nomad/1.9.3+ent/nomad_1.9.3+ent_linux_amd64.zip',
  );
  t.equal(indexUrl('https://m.example/art/'), 'https://m.example/art/nomad/index.json');
});

t.test('index.json and SHA256SUMS', async (t) => {
  const versions = { '1.9.3': { version: '1.9.3', builds: [] }, '1.9.3+ent': {}, '1.10.0-rc.1': {} };
  const index = JSON.stringify({ name: 'nomad', versions });
  t.same(parseReleaseIndex(index), { versions: ['1.9.3', '1.9.3+ent', '1.10.0-rc.1'] });
  t.match(parseReleaseIndex('<html>'), { error: /not JSON.*"<html>"/ });
  t.match(parseReleaseIndex('{"name":"nomad"}'), { error: /no "versions"/ });
  const a = 'a'.repeat(64);
  const b = 'B'.repeat(64);
  const sums = `${a}  nomad_1.9.3_darwin_arm64.zip\n${b}  nomad_1.9.3_linux_amd64.zip\n`;
  t.same(sha256For(sums, 'nomad_1.9.3_linux_amd64.zip'), { sha256: 'b'.repeat(64) });
  t.same(sha256For(`${a} *nomad.zip\n`, 'nomad.zip'), { sha256: a }, 'binary-mode star');
  t.match(sha256For(sums, 'nomad_1.9.3_linux_arm64.zip'), {
    error: /lists no nomad_1.9.3_linux_arm64.zip \(it lists 2 files\)/,
  });
  t.match(sha256For('garbage line\n', 'x'), { error: /not "<sha256> {2}<file>": "garbage line"/ });
});

t.test('versions: order, latest, nearest', async (t) => {
  const vs = ['1.9.3', '1.9.10', '1.9.7', '1.10.0-rc.1', '1.9.7+ent', '1.8.4', '1.10.0', '0.12.0', 'junk'];
  t.ok(compareVersions('1.9.10', '1.9.9') > 0);
  t.ok(compareVersions('1.10.0-rc.1', '1.10.0') < 0);
  t.ok(compareVersions('1.10.0-beta.2', '1.10.0-beta.10') < 0, 'numeric prerelease parts');
  t.equal(latestVersion(vs), '1.10.0', 'no prerelease, no +ent');
  t.equal(latestVersion(['1.9.3+ent', '2.0.0-rc.1']), undefined);
  t.same(nearestVersions('1.9.99', vs), ['1.9.10', '1.9.7', '1.9.3']);
  t.same(nearestVersions('1.9.8', vs), ['1.9.7', '1.9.10', '1.9.3'], 'closest patch first, newer on ties');
  t.same(nearestVersions('1.9.8+ent', vs, 1), ['1.9.7+ent'], 'same edition first');
});

t.test('gpgv status lines (recorded from gpgv 2.2.40)', async (t) => {
  const PRIMARY = 'C874011F0AB405110D02105534365D9472D7468F';
  const good = `[GNUPG:] NEWSIG security@hashicorp.com
[GNUPG:] KEY_CONSIDERED C874011F0AB405110D02105534365D9472D7468F 0
[GNUPG:] SIG_ID dGVzdA 2024-11-12 1731427200
[GNUPG:] GOODSIG 34365D9472D7468F HashiCorp Security (hashicorp.com/security) <security@hashicorp.com>
[GNUPG:] VALIDSIG 374EC75B485913604A831CC7C820C6D5CD27AB87 2024-11-12 1731427200 0 4 0 1 10 00 ${PRIMARY}
`;
  t.same(parseGpgvStatus(good, 'C874 011F 0AB4 0511 0D02  1055 3436 5D94 72D7 468F'), {
    ok: true,
    primaryFingerprint: PRIMARY,
    signingFingerprint: '374EC75B485913604A831CC7C820C6D5CD27AB87',
  });
  t.match(parseGpgvStatus(good, '941B7DBCF5E94A1C4EF96566E470365D52145181'), {
    ok: false,
    reason: /not the expected 941B/,
  });
  t.match(parseGpgvStatus(`[GNUPG:] NEWSIG\n[GNUPG:] BADSIG E470365D52145181 Test <t@example.invalid>\n`), {
    ok: false,
    reason: /BAD signature/,
  });
  t.match(
    parseGpgvStatus(`[GNUPG:] NEWSIG t@example.invalid
[GNUPG:] ERRSIG E470365D52145181 1 10 00 1796284787 9 941B7DBCF5E94A1C4EF96566E470365D52145181
[GNUPG:] NO_PUBKEY E470365D52145181
`),
    { ok: false, reason: /E470365D52145181, which is not in the trusted key file/ },
  );
  t.match(parseGpgvStatus(''), { ok: false, reason: /no good signature \(status: none\)/ });
  t.match(parseGpgvStatus('[GNUPG:] GOODSIG X y\n'), { ok: false }, 'GOODSIG without VALIDSIG is not enough');
});

t.test('nomad version output', async (t) => {
  // recorded: /work/nomad-build/v1.9.3/nomad version (built from the v1.9.3 tag)
  const rev = 'd92bf1014886c0ff9f882f4a2691d5ae8ad8131c';
  t.same(parseNomadVersion(`Nomad v1.9.3\nBuildDate 2024-11-11T16:35:41Z\nRevision ${rev}\n`), {
    version: '1.9.3',
    revision: 'd92bf1014886c0ff9f882f4a2691d5ae8ad8131c',
    buildDate: '2024-11-11T16:35:41Z',
  });
  t.match(parseNomadVersion('Nomad v1.9.3+ent\nRevision abc1234+CHANGES\n'), {
    version: '1.9.3+ent',
    revision: 'abc1234+CHANGES',
  });
  t.match(parseNomadVersion('Nomad v0.12.0 (594fbd1edb1e8e0b0e6b5c4e2cd8a0bc37cac3d3)\n'), {
    version: '0.12.0',
    revision: '594fbd1edb1e8e0b0e6b5c4e2cd8a0bc37cac3d3',
  });
  t.match(parseNomadVersion('Nomad v1.10.0-dev\nBuildDate 2025-01-01T00:00:00Z\n'), {
    version: '1.10.0-dev',
    revision: '',
  });
  t.match(parseNomadVersion(''), { error: /printed nothing/ });
  t.match(parseNomadVersion('Consul v1.20.0\n'), { error: /printed "Consul v1.20.0", not "Nomad v<version>"/ });
});

t.test('Go versions and go.mod', async (t) => {
  t.ok(goAtLeast('go1.26.8', '1.23'));
  t.ok(goAtLeast('go1.23.0', '1.23'));
  t.ok(goAtLeast('go1.22.7', '1.22.7'));
  t.notOk(goAtLeast('go1.22.6', '1.22.7'));
  t.notOk(goAtLeast('go1.9', '1.21'));
  t.notOk(goAtLeast('devel', '1.21'), 'an unreadable version is not trusted');
  t.same(parseGoMod('module github.com/hashicorp/nomad\n\ngo 1.23\n\n// Pinned\nreplace (\n)\n'), {
    module: 'github.com/hashicorp/nomad',
    go: '1.23',
  });
  t.same(parseGoMod('module "example.test/x" // quoted\n'), { module: 'example.test/x', go: undefined });
  t.match(parseGoMod('go 1.22\n'), { error: /no module line/ });
});

t.test('provenance as report properties', async (t) => {
  const ZIP = 'https://releases.hashicorp.com/nomad/1.9.3/nomad_1.9.3_linux_amd64.zip';
  const b: ResolvedBuild = {
    spec: '1.9.3',
    path: '/c/abc/nomad',
    sha256: 'abc',
    version: '1.9.3',
    revision: 'd92bf10',
    origin: { kind: 'release', url: ZIP, verified: VERIFIED },
  };
  t.same(buildProperties(b), {
    'nomad.build.spec': '1.9.3',
    'nomad.build.origin': `release ${ZIP} (checksum and signature verified)`,
    'nomad.build.origin.kind': 'release',
    'nomad.build.sha256': 'abc',
    'nomad.build.version': '1.9.3',
    'nomad.build.revision': 'd92bf10',
    'nomad.build.path': '/c/abc/nomad',
    'nomad.build.origin.url': ZIP,
    'nomad.build.origin.verified': 'checksum and signature verified',
  });
  const git = { ...b, spec: 'git:/s', origin: { kind: 'git' as const, dir: '/s', commit: 'c0ffee', dirty: true } };
  const g = buildProperties(git, 'nomad.after.build');
  t.match(g, {
    'nomad.after.build.origin': 'git /s c0ffee (dirty: uncommitted changes included)',
    'nomad.after.build.origin.dirty': 'true',
    'nomad.after.build.origin.commit': 'c0ffee',
  });
  t.equal(describeOrigin({ kind: 'path', path: '/x/nomad' }), 'path /x/nomad');
  for (const v of Object.values(g)) t.type(v, 'string');
});
