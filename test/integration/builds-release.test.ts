// Release specs against a real HTTP server on loopback serving the official layout, verified with real gpg/gpgv.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { resolveBuilds } from '../helpers/builds.js';
import { planBuilds } from '../../lib/builds/resolve.js';
import { httpGet } from '../../lib/builds/http.js';
import type { BuildContext } from '../../lib/builds/context.js';
import { HASHICORP_FINGERPRINT, HASHICORP_KEY_FILE, verifyDetached } from '../../lib/builds/gpg.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { ConfigError, EXIT, HarnessError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { rejection } from '../helpers/rejection.js';
import { filesUnder, mirrorPrereqs, publish, startMirror, testKey, testNomad } from '../helpers/release-mirror.js';

const skip = mirrorPrereqs();
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

t.test("the shipped key is HashiCorp's release key (gpg --show-keys)", { skip: skip ?? false }, async (t) => {
  const dir = t.testdir();
  const args = ['--homedir', dir, '--batch', '--with-colons', '--show-keys', HASHICORP_KEY_FILE];
  const out = execFileSync('gpg', args).toString();
  t.match(out, /^pub:/m);
  t.equal(/^fpr:+([0-9A-F]{40}):/m.exec(out)?.[1], HASHICORP_FINGERPRINT);
  t.equal(HASHICORP_FINGERPRINT, 'C874 011F 0AB4 0511 0D02 1055 3436 5D94 72D7 468F'.replace(/ /g, ''));
  t.match(out, /HashiCorp Security \(hashicorp\.com\/security\) <security@hashicorp\.com>/);
});

t.test(
  'a signature HashiCorp really made (terraform-provider-null 3.1.0 SHA256SUMS) verifies with the shipped key; one byte changed does not',
  { skip: skip ?? false },
  async (t) => {
    const real = fileURLToPath(new URL('../fixtures/builds/real-hashicorp/', import.meta.url));
    const sums = join(real, 'terraform-provider-null_3.1.0_SHA256SUMS');
    const sig = `${sums}.72D7468F.sig`;
    t.equal(
      sha(readFileSync(sums)),
      '435cabea2bd62944d1b67d17c0cba56a7d23aabe5dceea73fb506094977b0e9f',
      'the file as HashiCorp published it',
    );
    const opts = { keyFile: HASHICORP_KEY_FILE, fingerprint: HASHICORP_FINGERPRINT, deadline: deadlineIn(30_000) };
    t.same(
      await verifyDetached(sums, sig, opts),
      {
        ok: true,
        primaryFingerprint: HASHICORP_FINGERPRINT,
        signingFingerprint: 'B36CBA91A2C0730C435FC280B0B441097685B676',
      },
      'good: made by a signing subkey of C874…468F (expired since; gpgv judges the signature as made)',
    );
    const dir = t.testdir({ SHA256SUMS: readFileSync(sums, 'utf8').replace('53e30545', '53e30546') });
    t.match(
      await verifyDetached(join(dir, 'SHA256SUMS'), sig, opts),
      { ok: false, reason: /^BAD signature \(made by key B0B441097685B676\)/ },
      'one digit of the linux_amd64 line changed: BAD',
    );
  },
);

t.test('release specs', { skip: skip ?? false }, async (t) => {
  t.setTimeout(120_000);
  const dir = t.testdir();
  const key = testKey(join(dir, 'key'));
  const other = testKey(join(dir, 'other'), 'Someone Else');
  t.teardown(() => {
    key.stop();
    other.stop();
  });
  const bin = (v: string, rev: string) => readFileSync(testNomad(join(dir, 'bin'), v, rev));
  const b193 = bin('1.9.3', 'd92bf1014886c0ff9f882f4a2691d5ae8ad8131c');
  const b197 = bin('1.9.7', '0a7f4d3e1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b');
  const good = publish('1.9.3', b193, key);
  const tamperedZip = Buffer.from(good.zip);
  tamperedZip[tamperedZip.length - 30] = tamperedZip[tamperedZip.length - 30]! ^ 0x01;
  const sumsAltered = publish('1.9.5', bin('1.9.5', 'beef'), key);
  const mirror = await startMirror(
    {
      '1.9.3': good,
      '1.9.7': publish('1.9.7', b197, key),
      '1.9.4': { ...publish('1.9.4', bin('1.9.4', 'cafe'), key), zip: tamperedZip },
      '1.9.5': { ...sumsAltered, sums: sumsAltered.sums.replace(/^0{64}/, '1'.repeat(64)) },
      '1.9.6': publish('1.9.6', bin('1.9.6', 'f00d'), other),
      '1.9.8': publish('1.9.8', bin('1.9.8', 'abcdef0'), key),
      '1.8.9': publish('1.8.9', b197, key),
    },
    ['1.8.4', '1.10.0-rc.1', '1.9.3+ent'],
  );
  t.teardown(mirror.stop);

  const ctxFor = (cache: string, extra: Partial<BuildContext> = {}) => {
    const events: LogEvent[] = [];
    const ctx: BuildContext = {
      cacheRoot: cache,
      releasesUrl: mirror.url,
      releasesKey: key.pubFile,
      cwd: dir,
      home: dir,
      logger: (e) => void events.push(e),
      ...extra,
    };
    return { ctx, events };
  };
  const one = (text: string, ctx: BuildContext) => resolveBuilds([{ text, field: '--nomad' }], ctx);

  t.test('a good release: verified, unpacked, cached by sha256, version and revision from the binary', async (t) => {
    const cache = join(dir, 'cache-good');
    const [b] = await one('1.9.3', ctxFor(cache).ctx);
    t.equal(b!.path, join(cache, sha(b193), 'nomad'));
    t.equal(b!.sha256, sha(b193));
    t.ok(readFileSync(b!.path).equals(b193), 'the unpacked binary is the published one');
    t.ok(statSync(b!.path).mode & 0o100, 'executable');
    t.match(b, {
      spec: '1.9.3',
      version: '1.9.3',
      revision: 'd92bf1014886c0ff9f882f4a2691d5ae8ad8131c',
      origin: {
        kind: 'release',
        url: `${mirror.url}/nomad/1.9.3/nomad_1.9.3_linux_amd64.zip`,
        verified: 'checksum and signature verified',
      },
    });
    t.equal(mirror.count('nomad_1.9.3_linux_amd64.zip'), 1);

    t.test('cache hit: the same version again downloads nothing', async (t) => {
      const before = mirror.requests.length;
      const { ctx, events } = ctxFor(cache);
      const [again] = await one('1.9.3', ctx);
      t.equal(mirror.requests.length, before, 'no request at all');
      t.same(again, b);
      t.ok(events.some((e) => e.kind === 'info' && /from the cache/.test(e.message)));
    });
    t.test('latest asks index.json only, then resolves like its version', async (t) => {
      const before = mirror.requests.length;
      const [l] = await one('latest', ctxFor(cache).ctx);
      t.equal(l!.version, '1.9.8', 'the highest final community release');
      t.same(
        mirror.requests.slice(before).filter((r) => r.endsWith('index.json')),
        ['/nomad/index.json'],
      );
      const [again] = await one('latest', ctxFor(cache).ctx);
      t.equal(again!.sha256, l!.sha256);
      t.same(mirror.requests.slice(before + 4), ['/nomad/index.json'], 'the second latest: index.json, nothing else');
    });
    t.test('a damaged cache entry is not trusted: downloaded again', async (t) => {
      execFileSync('sh', ['-c', `printf x >> '${b!.path}'`]);
      const before = mirror.count('nomad_1.9.3_linux_amd64.zip');
      const [again] = await one('1.9.3', ctxFor(cache).ctx);
      t.equal(again!.sha256, sha(b193));
      t.equal(mirror.count('nomad_1.9.3_linux_amd64.zip'), before + 1);
    });
  });

  const refused = async (t: Test, version: string, cache: string, extra: Partial<BuildContext> = {}) => {
    const err = await rejection(one(version, ctxFor(cache, extra).ctx));
    t.type(err, HarnessError);
    t.same(filesUnder(cache), [], 'nothing left in the cache');
    return err as HarnessError;
  };

  t.test('one release under four spellings is downloaded and verified once, each spelling kept', async (t) => {
    const cache = join(dir, 'cache-spellings');
    const { ctx, events } = ctxFor(cache);
    const specs = ['1.9.7', 'v1.9.7', 'release:1.9.7', 'release:v1.9.7'];
    const before = mirror.count('nomad_1.9.7_linux_amd64.zip');
    const sumsBefore = mirror.count('nomad_1.9.7_SHA256SUMS');
    const builds = await resolveBuilds(
      specs.map((text, i) => ({ text, field: `build spec ${i + 1}` })),
      ctx,
    );
    t.equal(mirror.count('nomad_1.9.7_linux_amd64.zip') - before, 1, 'one download');
    t.equal(mirror.count('nomad_1.9.7_SHA256SUMS') - sumsBefore, 1, 'one verification');
    t.equal(events.filter((e) => e.kind === 'info' && /downloading Nomad 1\.9\.7/.test(e.message)).length, 1);
    t.equal(
      events.filter((e) => e.kind === 'info' && /from the cache/.test(e.message)).length,
      0,
      'the other spellings are not resolved again (before: three "from the cache … verified" lines)',
    );
    t.same(
      builds.map((b) => b.spec),
      specs,
      'each spelling named as given',
    );
    t.equal(new Set(builds.map((b) => b.path)).size, 1, 'one binary');
  });

  t.test('a tampered zip: checksum mismatch, exit 2, nothing cached', async (t) => {
    const err = await refused(t, '1.9.4', join(dir, 'cache-tampered'));
    t.type(err, ConfigError);
    t.equal(err.exitCode, EXIT.USAGE);
    t.match(
      err.message,
      /--nomad: checksum mismatch: nomad_1.9.4_linux_amd64.zip has sha256 [0-9a-f]{64}, the signed SHA256SUMS says/,
    );
  });
  t.test('SHA256SUMS changed after signing: BAD signature, exit 2, the zip never fetched', async (t) => {
    const err = await refused(t, '1.9.5', join(dir, 'cache-badsig'));
    t.equal(err.exitCode, EXIT.USAGE);
    t.match(err.message, /signature of .*nomad_1.9.5_SHA256SUMS does not verify against .*: BAD signature/);
    t.equal(mirror.count('nomad_1.9.5_linux_amd64.zip'), 0);
  });
  t.test('signed by a key that is not trusted: exit 2', async (t) => {
    const err = await refused(t, '1.9.6', join(dir, 'cache-otherkey'));
    t.match(err.message, /which is not in the trusted key file/);
  });
  t.test("without --releases-key only HashiCorp's shipped key is trusted", async (t) => {
    const { releasesKey: _k, ...rest } = ctxFor(join(dir, 'cache-default')).ctx;
    const err = await rejection(one('1.9.3', rest));
    const keyFile = HASHICORP_KEY_FILE.replace(/[.]/g, '\\.');
    t.match((err as Error).message, new RegExp(`against ${keyFile}: signed by key [0-9A-F]{16}, which is not in`));
    t.same(filesUnder(join(dir, 'cache-default')), []);
  });
  t.test('a zip that holds another version than its name: exit 2', async (t) => {
    const err = await refused(t, '1.8.9', join(dir, 'cache-mislabelled'));
    t.match(err.message, /nomad_1\.8\.9_linux_amd64\.zip holds Nomad 1\.9\.7, not 1\.8\.9/);
  });
  t.test('an unknown version: exit 2 naming the nearest published versions', async (t) => {
    const err = await refused(t, '1.9.99', join(dir, 'cache-unknown'));
    t.equal(err.exitCode, EXIT.USAGE);
    t.match(err.message, `no release 1.9.99 at ${mirror.url}`);
    t.match(err.message, /use one of the nearest published versions: 1\.9\.8, 1\.9\.7, 1\.9\.6 \(or latest\)/);
    const ent = await refused(t, '1.9.4+ent', join(dir, 'cache-unknown'));
    t.match(ent.message, /nearest published versions: 1\.9\.3\+ent/);
  });
  t.test('the server is down: exit 3 naming --releases-url and local builds', async (t) => {
    const down = await startMirror({});
    await down.stop();
    const err = await refused(t, '1.9.3', join(dir, 'cache-down'), { releasesUrl: down.url });
    t.equal(err.exitCode, EXIT.INFRA);
    t.match(err.message, /cannot reach the releases site .*ECONNREFUSED/);
    t.match(err.hint, /--releases-url \(NOMAD_RELEASES_URL\).*a path to a linux\/amd64 nomad binary, or git:/);
  });
  t.test('a --releases-key that does not exist is a plan problem, before any request', async (t) => {
    const before = mirror.requests.length;
    const { ctx } = ctxFor(join(dir, 'c'), { releasesKey: join(dir, 'nope.asc') });
    const r = await planBuilds([{ text: '1.9.3', field: '--nomad' }], ctx);
    t.match(r, { problems: [{ field: '--releases-key', message: 'no such file' }] });
    t.equal(mirror.requests.length, before);
  });
  t.test(
    'a --releases-key that is a directory or a fifo is a plan problem, not a failed signature check later',
    async (t) => {
      const before = mirror.requests.length;
      const keys = join(dir, 'keys-dir');
      mkdirSync(keys, { recursive: true });
      const fifo = join(dir, 'key.fifo');
      execFileSync('mkfifo', [fifo]);
      for (const [key, message, fix] of [
        [keys, /^is a directory, not a key file$/, /^give the public key file that signs/],
        // every input slot's words for a FIFO (lib/input/read.ts notAFileText), read without waiting for a writer
        [
          fifo,
          /^is a named pipe \(FIFO\), not a file: reading it would wait for a writer/,
          /^write it to a file first/,
        ],
      ] as const) {
        const { ctx } = ctxFor(join(dir, 'c'), { releasesKey: key });
        const r = await planBuilds([{ text: '1.9.3', field: '--nomad' }], ctx);
        t.match(r, { problems: [{ field: '--releases-key', value: key, message, fix }] }, key);
      }
      t.equal(mirror.requests.length, before, 'no request');
    },
  );
  t.test(
    'a --releases-key that is no OpenPGP public key (a kubeconfig, a private key, empty) is a plan problem, before any request (Q196)',
    async (t) => {
      const before = mirror.requests.length;
      const files = {
        'kube.yaml': ['apiVersion: v1\nkind: Config\nusers: []\n', /is not an OpenPGP public key/],
        'priv.asc': ['-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQ\n', /is an OpenPGP private key: give the public key/],
        'empty.asc': ['', /is empty, not an OpenPGP public key/],
      } as const;
      for (const [name, [text, message]] of Object.entries(files)) {
        const key = join(dir, name);
        writeFileSync(key, text);
        const { ctx } = ctxFor(join(dir, 'c'), { releasesKey: key });
        const r = await planBuilds([{ text: '1.9.3', field: '--nomad' }], ctx);
        t.match(r, { problems: [{ field: '--releases-key', value: key, message }] }, name);
        t.notMatch(JSON.stringify(r), /apiVersion|lQ/, `${name}: its content is not shown`);
      }
      // a binary export (gpg --export without --armor) starts with a public-key packet: taken
      const bin = join(dir, 'key.gpg');
      writeFileSync(bin, Buffer.from([0x99, 0x01, 0x0d, 0x04]));
      const { ctx } = ctxFor(join(dir, 'c'), { releasesKey: bin });
      t.notOk('problems' in (await planBuilds([{ text: '1.9.3', field: '--nomad' }], ctx)), 'a binary key packet');
      t.equal(mirror.requests.length, before, 'no request');
    },
  );
});

t.test(
  'httpGet reads a body only up to its bound: past it the request ends, exit 3, nothing more read (Q253)',
  async (t) => {
    // a server whose every file is 8 MiB of 'A': chunked (no length), or with its length declared (?length)
    const size = 8 * 1024 * 1024;
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    const server = createServer((req, res) => {
      res.writeHead(200, req.url?.endsWith('?length') ? { 'content-length': String(size) } : {});
      let left = size;
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          left -= chunk.length;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      req.on('close', () => res.destroy());
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      server.closeAllConnections();
      server.close();
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/nomad/1.9.7`;
    const get = (path: string, maxBytes?: number) =>
      httpGet(`${base}/${path}`, { deadline: deadlineIn(20_000), ...(maxBytes ? { maxBytes } : {}) });
    // the error, or what was read instead (its size: the body itself is megabytes of 'A')
    const refusal = (p: ReturnType<typeof get>) =>
      p.then(
        (r) => new Error(`read whole: ${r.body.length} bytes`),
        (e: unknown) => e,
      );

    const cut = await refusal(get('nomad_1.9.7_SHA256SUMS', 1024 * 1024));
    t.type(cut, HarnessError);
    t.equal((cut as HarnessError).exitCode, EXIT.INFRA);
    t.match(
      String((cut as Error).message),
      /\/nomad_1\.9\.7_SHA256SUMS: the server sent more than 1 MiB for nomad_1\.9\.7_SHA256SUMS, more than any release file \(1 MiB at most\): not read further/,
    );
    t.ok(sent < size, `the transfer was cut short (${sent} of ${size} bytes sent)`);

    const declared = await refusal(get('nomad_1.9.7_linux_amd64.zip?length', 1024 * 1024));
    t.match(
      String((declared as Error).message),
      /the server sent a length of 8388608 bytes for nomad_1\.9\.7_linux_amd64\.zip/,
    );

    const whole = await get('index.json');
    t.equal(whole.body.length, size, 'within the default bound (16 MiB): read whole');
  },
);
