// redact(): recorded secret-bearing samples; and an end-to-end check that written reports never contain a planted secret.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  REDACTED,
  redact,
  redactDeep,
  redactKnown,
  secretPattern,
  secretsByName,
  secretsInArgv,
} from '../../lib/log/redact.js';
import type { RunRecord } from '../../lib/model/run.js';
import { renderConsoleSummary } from '../../lib/report/console.js';
import { redactSession, writeSessionReports } from '../../lib/report/write.js';
import { REPORTERS } from '../../lib/report/reporters.js';
import { contextIn, sessionOf } from '../helpers/session.js';

const TOKEN = '3f9c2a1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b';
// A throwaway ed25519 key generated for this test (not used anywhere).
const OPENSSH_KEY = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACBvYWtlZm9ydGVzdHNvbmx5bm90YXJlYWxrZXkxMjM0NQAAAJiLa0yLi2tM
-----END OPENSSH PRIVATE KEY-----`;
const RSA_KEY = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAfaketestkeymaterialonlyfortheharnessunittests0123456789
-----END RSA PRIVATE KEY-----`;

t.test('known secrets are replaced wherever they appear', async (t) => {
  t.equal(redact(`token ${TOKEN} and again ${TOKEN}.`, [TOKEN]), `token ${REDACTED} and again ${REDACTED}.`);
  t.equal(redact(`"${TOKEN}" /x/${TOKEN}/y ${TOKEN}.`, [TOKEN]), `"${REDACTED}" /x/${REDACTED}/y ${REDACTED}.`);
  const long = 'abcdefghijklmnopqrstuvwxyz';
  t.equal(redact(`a ${long} b`, [long, long.slice(0, 20)]), `a ${REDACTED} b`, 'longest first');
});

t.test("a secret is redacted as a whole token, never inside a word or the harness's own names (N8)", async (t) => {
  // a long token: only where it stands alone
  const word = 'nomadrebootharness'; // 18 characters, a run of letters that the harness's names contain
  t.equal(
    redact(`xx${word} ${word}-x ${word}.js a.${word} ${word}`, [word]),
    `xx${word} ${word}-x ${word}.js a.${word} ${REDACTED}`,
  );
  // a short token (a common word): only as a whole value, never as a substring
  const text = [
    '"schema": "nomad-reboot-harness/summary@1"',
    "run bridge-exec-reboot --nomad /work/builds/nomad --netns ''",
    'boot_id differs; reboot done',
  ].join('\n');
  t.equal(redact(text, ['nomad', 'boot']), text, 'no substring of a word, flag, path or schema id');
  t.equal(
    redactKnown('{"token2":"nomad","x":"a nomad-x"}', ['nomad']),
    `{"token2":"${REDACTED}","x":"a nomad-x"}`,
    'a whole value, not part of a name',
  );
  t.equal(
    redact('token nomad leaked; nomad.', ['nomad']),
    `token ${REDACTED} leaked; ${REDACTED}.`,
    'a whole word in a log line',
  );
  t.equal(
    redactKnown("NOMAD_TOKEN='boot'\nboot\n<t>boot</t>", ['boot']),
    `NOMAD_TOKEN='${REDACTED}'\n${REDACTED}\n<t>${REDACTED}</t>`,
  );
  t.same(redactDeep({ a: 'boot', b: 'reboot' }, ['boot']), { a: REDACTED, b: 'reboot' }, 'a whole JSON value');
  t.equal(secretPattern(['']), undefined, 'an empty secret matches nothing');
});

t.test('a token in a URL query is redacted (N5)', async (t) => {
  t.equal(
    redact('GET http://m.example/?token=MARKER-q&v=1 and ?X-Amz-Signature=abc', []),
    `GET http://m.example/?token=${REDACTED}&v=1 and ?X-Amz-Signature=${REDACTED}`,
  );
});

t.test('secret-shaped text is replaced by pattern', async (t) => {
  const samples: [string, string][] = [
    [
      `curl -H 'X-Nomad-Token: ${TOKEN}' http://127.0.0.1:4646/v1/jobs`,
      `curl -H 'X-Nomad-Token: ${REDACTED}' http://127.0.0.1:4646/v1/jobs`,
    ],
    [`{"X-Nomad-Token":"${TOKEN}"}`, `{"X-Nomad-Token":"${REDACTED}"}`],
    [`Authorization: Bearer ${TOKEN}`, `Authorization: Bearer ${REDACTED}`],
    [`authorization=${TOKEN}`, `authorization=${REDACTED}`],
    [`env NOMAD_TOKEN=${TOKEN} nomad job status`, `env NOMAD_TOKEN=${REDACTED} nomad job status`],
    [`export NOMAD_TOKEN="${TOKEN}"`, `export NOMAD_TOKEN="${REDACTED}"`],
    [
      `{"AccessorID":"a1","SecretID": "${TOKEN}","Name":"Bootstrap Token"}`,
      `{"AccessorID":"a1","SecretID": "${REDACTED}","Name":"Bootstrap Token"}`,
    ],
    [`"{\\"SecretID\\":\\"${TOKEN}\\"}"`, `"{\\"SecretID\\":\\"${REDACTED}\\"}"`],
    [
      `Accessor ID  = 0b1c\nSecret ID    = ${TOKEN}\nName         = Bootstrap Token`,
      `Accessor ID  = 0b1c\nSecret ID    = ${REDACTED}\nName         = Bootstrap Token`,
    ],
    [`key:\n${OPENSSH_KEY}\nend`, `key:\n${REDACTED}\nend`],
    [`${RSA_KEY}\n${OPENSSH_KEY}`, `${REDACTED}\n${REDACTED}`],
    [`stderr tail: ${OPENSSH_KEY.slice(0, 80)}`, `stderr tail: ${REDACTED}`],
    [
      'fetch http://user:SECRET@127.0.0.1:59999/nomad/index.json',
      `fetch http://${REDACTED}@127.0.0.1:59999/nomad/index.json`,
    ],
    [`"https://${TOKEN}@mirror.example/x"`, `"https://${REDACTED}@mirror.example/x"`],
  ];
  for (const [input, want] of samples) t.equal(redact(input, []), want, input.split('\n')[0]!);
  const harmless = 'no token here: AccessorID, Authorization header missing, public key ssh-ed25519 AAAAC3Nz';
  t.equal(redact(harmless, []), harmless, 'ordinary text is left alone');
});

t.test('redactDeep', async (t) => {
  const v = redactDeep(
    { SecretID: TOKEN, nested: [{ msg: `NOMAD_TOKEN=${TOKEN}` }, 3, null, true], [TOKEN]: 'key' },
    [],
  );
  t.same(
    v,
    { SecretID: REDACTED, nested: [{ msg: `NOMAD_TOKEN=${REDACTED}` }, 3, null, true], [TOKEN]: 'key' },
    'patterns only without the token list',
  );
  t.same(redactDeep({ [TOKEN]: 'x' }, [TOKEN]), { [REDACTED]: 'x' }, 'keys are redacted too');
  t.same(redactDeep({ token: '' }, []), { token: '' }, 'empty values stay empty');
});

t.test('no planted secret reaches a written report', async (t) => {
  const runs = JSON.parse(
    readFileSync(new URL('../fixtures/report/runs.json', import.meta.url), 'utf8'),
  ) as RunRecord[];
  const [a, b] = runs as [RunRecord, RunRecord];
  a.verdicts[0]!.evidence.push(`journal: X-Nomad-Token: ${TOKEN}`, `ssh key:\n${OPENSSH_KEY}`);
  a.verdicts[5]!.message = `dup & <tag> ${TOKEN}`;
  a.properties['agent.env'] = `NOMAD_TOKEN=${TOKEN}`;
  a.artifacts.push({ name: 'x', path: `reports/${TOKEN}/x.txt`, caseName: 'alloc-restored' });
  b.steps[1]!.detail = `provision failed\n${RSA_KEY}\n"SecretID": "${TOKEN}"`;
  b.error = { message: `nomad acl bootstrap printed ${TOKEN}`, detail: OPENSSH_KEY };
  const dir = t.testdir();
  const junitPath = join(dir, 'deep', 'er', 'junit.xml');
  const jsonPath = join(dir, 'summary', 'run.json');
  const { written } = await writeSessionReports(
    sessionOf(runs),
    REPORTERS,
    contextIn(dir, { junitPath, jsonPath, secrets: [TOKEN], rawArgs: ['--expect', `x=${TOKEN}`] }),
  );
  t.same(
    written.slice(0, 2).map((f) => f.path),
    [junitPath, jsonPath],
    'both written, folders created',
  );
  const pages = written.filter((f) => f.kind === 'html' || f.kind === 'repro');
  t.ok(
    pages.some((f) => f.kind === 'repro'),
    'a failed run has a repro.sh',
  );
  const texts: Record<string, string> = {
    junit: readFileSync(junitPath, 'utf8'),
    json: readFileSync(jsonPath, 'utf8'),
    console: renderConsoleSummary(
      redactSession(sessionOf(runs), [TOKEN]).suites.flatMap((x) => x.attempts),
      { color: true },
    ),
    ...Object.fromEntries(pages.map((f) => [f.path, readFileSync(f.path, 'utf8')])),
  };
  for (const [name, text] of Object.entries(texts)) {
    t.notOk(text.includes(TOKEN), `${name}: token absent`);
    t.notOk(text.includes('3f9c2a1e'), `${name}: no fragment of the token`);
    t.notOk(/PRIVATE KEY|b3BlbnNzaC1rZXktdjE|MIIEowIBAAKCAQEA/.test(text), `${name}: no private key material`);
    if (name.endsWith('repro.sh')) t.match(text, `'x='"$NOMAD_TOKEN"`, `${name}: the argument refers to $NOMAD_TOKEN`);
    else if (!name.endsWith('.html') || text.includes('[REDACTED]'))
      t.ok(text.includes(REDACTED), `${name}: shows that something was redacted`);
  }
  t.doesNotThrow(() => JSON.parse(texts['json']!), 'JSON still parses');
  t.match(texts['junit']!, 'expected failure: dup & <tag> [REDACTED]', 'the redacted message is still shown (CDATA)');
  t.match(
    texts['junit']!,
    '<error message="nomad acl bootstrap printed [REDACTED]" type="infrastructure">',
    'and in attributes',
  );
  t.ok(
    runs[0]!.verdicts[0]!.evidence.some((l) => l.includes(TOKEN)),
    'the caller’s records are not mutated',
  );
});

t.test('a secret with a quote, a backslash or a newline is redacted where JSON or XML escaped it (Q19)', async (t) => {
  for (const secret of ['quo"tetoken-abcdefghijk', 'bs\\tokenabcdefghijk123', 'nl-token-abcdefgh\nsecond-line-xyz']) {
    const json = JSON.stringify({ nomad: { token: secret }, note: `NOMAD said ${secret}` }, null, 2);
    const out = redactKnown(json, [secret]);
    t.notOk(out.includes(JSON.stringify(secret).slice(1, -1)), `${JSON.stringify(secret)}: not in the JSON text`);
    t.match(out, `"token": "${REDACTED}"`);
    t.same(JSON.parse(out), { nomad: { token: REDACTED }, note: `NOMAD said ${REDACTED}` }, 'still JSON');
    const xml = `<failure message="${secret.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"/>`;
    t.equal(redact(xml, [secret]), `<failure message="${REDACTED}"/>`, 'and where XML escaped it');
    t.equal(redact(`raw ${secret} end`, [secret]), `raw ${REDACTED} end`, 'and as given');
  }
  t.equal(redactKnown('{"t":"a\\"b"}', ['a"b']), `{"t":"${REDACTED}"}`, 'a short secret too');
});

t.test('a URL read as a path keeps its credentials out; a git: spec with a ref is left whole (Q53)', async (t) => {
  t.equal(
    redact('no file at /work/https:/bob:ghp_abcdef1234567890@example.com/nomad', []),
    `no file at /work/https:/${REDACTED}@example.com/nomad`,
  );
  t.equal(redact('http:/tok3nvalue@host/x', []), `http:/${REDACTED}@host/x`);
  for (const kept of ['git:/nomad@v1.9.7', '--nomad git:/src@main', 'at /tmp/a:b@c', 'mailto: x@y'])
    t.equal(redact(kept, []), kept, kept);
});

t.test(
  'secretsInArgv and secretsByName: the forms a power-reset command and job variables write (Q54, Q55)',
  async (t) => {
    const pw = 'Pw0rdValue';
    t.same(secretsInArgv(['ipmitool', '-H', 'h', `-P${pw}`]), [`-P${pw}`], 'ipmitool -P<pw>: the whole word');
    t.same(secretsInArgv(['env', `IPMI_PASSWORD=${pw}`, 'ipmitool', '-E']), [pw]);
    t.same(secretsInArgv(['curl', '-u', `admin:${pw}`, 'http://pdu']), [pw]);
    t.same(secretsInArgv(['reset', '--pw', pw]), [pw]);
    t.same(secretsInArgv(['ssh', '-p', '22', 'HOST=abcdefgh', '-u', 'nouser']), [], 'a port, a plain variable, a user');
    t.same(secretsByName({ db_pass: pw, ssh_passphrase: pw, pass: pw }), [pw, pw, pw]);
    t.same(secretsByName({ bypass_cache: 'example.com', passes: 'abcdefgh', compass: 'abcdefgh' }), []);
  },
);

t.test('a job variable named in camelCase with Pass as a word is a secret: dbPass, adminPass (Q79)', async (t) => {
  const pw = 'Pw0rdValue';
  t.same(secretsByName({ dbPass: pw, adminPass: pw, rootPass2: pw, PassPhrase: pw }), [pw, pw, pw, pw]);
  t.same(secretsInArgv(['env', `dbPass=${pw}`, 'reset']), [pw], 'NAME=<pw> in a power-reset command');
  t.same(
    secretsByName({ bypassCache: 'abcdefgh', compassHeading: 'abcdefgh', Passenger: 'abcdefgh', passes: 'abcdefgh' }),
    [],
    'pass inside a word, or a word that starts with it, is no secret name',
  );
});

t.test('bearer, pat and tok as a word of a name say a secret; inside a word they do not (Q146)', async (t) => {
  const pw = 'Zq8vW2kLm4';
  const named = { bearer: pw, githubPat: pw, vaultTok: pw, GITHUB_PAT: pw, vault_tok: pw, BearerAuth: pw };
  t.same(secretsByName(named), Object.values(named));
  const plain = { pattern: pw, nomadPath: pw, Patch: pw, tokyo: pw, compatible: pw, stock: pw, patch_level: pw };
  t.same(secretsByName(plain), [], 'pat and tok inside a word, or a word that starts with them, are no secret name');
});

t.test('a key named for what it encrypts or signs, pw and acl as a word of a name say a secret (Q161)', async (t) => {
  const pw = 'Zq8vW2kLm4';
  const named = {
    encryptionKey: pw,
    signing_key: pw,
    gossipKey: pw,
    tls_key: pw,
    sshKey: pw,
    ACCESS_KEY: pw,
    license_key: pw,
    admin_pw: pw,
    consulAcl: pw,
    nomad_acl: pw,
  };
  t.same(secretsByName(named), Object.values(named));
  const plain = {
    cache_key: pw,
    routing_key: pw,
    key_prefix: pw,
    oracle: pw,
    pwr_state: pw,
    aclEnabled: 'true',
    spw: pw,
  };
  t.same(secretsByName(plain), [], 'a key of no secret, and pw or acl inside a word, are no secret name');
});

t.test('user:password@host without a scheme is redacted; an image digest or a path is not (Q74)', async (t) => {
  t.equal(redact('(got "bob:S3cretPw99@bastion.example"; fix', []), `(got "bob:${REDACTED}@bastion.example"; fix`);
  t.equal(redact('"address": "root:S3cretPw99@10.0.0.5",', []), `"address": "root:${REDACTED}@10.0.0.5",`);
  for (const kept of [
    'image docker.io/library/redis:7.2@sha256:abcd',
    'redis:7777@sha256:abcd',
    'git@github.com:org/repo',
    'at 10:30 admin@host',
    // a build spec: the directory nomad at its ref (the redactor took "nomad" for git's password)
    '(got "git:nomad@no-recipe"; fix',
    'git:nomad@v1.9.3',
    'path:nomad@x',
  ])
    t.equal(redact(kept, []), kept, kept);
});
