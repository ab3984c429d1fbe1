// The field parsers and the config table: what each accepts, what it rejects, and that defaults pass their own checks.
import t from 'tap';
import { hclVars, bool, int, oneOf, str, strList, type Parsed } from '../../lib/config/fields.js';
import { durationSeconds, goDuration, timeoutSeconds } from '../../lib/config/durations.js';
import { netnsName, subnet24 } from '../../lib/config/network-fields.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { FIELDS } from '../../lib/config/table.js';

const value = (p: Parsed) => (p.ok ? p.value : `REJECTED: ${p.message}`);

t.test('goDuration: Go durations with a unit (heartbeat_grace)', async (t) => {
  for (const d of ['90s', '5m', '1h30m', '1.5h', '500ms', '2m30s', '10us'])
    t.equal(value(goDuration(d)), d, `accepts ${d}`);
  for (const d of ['5', 5, '5 m', '', ' 5m', 'five minutes', '-5m', '5d', '1h 30m', 'm', null, undefined, {}]) {
    const p = goDuration(d);
    t.notOk(p.ok, `rejects ${JSON.stringify(d)}`);
    if (!p.ok) t.match(p.fix, /"90s"/, 'the fix shows an example');
  }
});

t.test('durationSeconds', async (t) => {
  t.equal(durationSeconds('5m'), 300);
  t.equal(durationSeconds('1h30m'), 5400);
  t.equal(durationSeconds('1.5m'), 90);
  t.equal(durationSeconds('500ms'), 0.5);
  t.equal(durationSeconds('2h0m10s'), 7210);
});

t.test('timeoutSeconds: "30m" or plain seconds, within bounds', async (t) => {
  const p = timeoutSeconds(10, 6 * 3600);
  t.equal(value(p('30m')), 1800);
  t.equal(value(p('1800')), 1800);
  t.equal(value(p(1800)), 1800);
  t.equal(value(p('1h30m')), 5400);
  t.equal(value(p('10.4s')), 10, 'rounded to whole seconds');
  for (const bad of ['5s', 9, '7h', 'soon', '', '-30m', '30 m', null, true])
    t.notOk(p(bad).ok, `rejects ${JSON.stringify(bad)}`);
});

t.test('int: whole numbers within bounds; digit strings from flags and env', async (t) => {
  const p = int(1, 16);
  t.equal(value(p(4)), 4);
  t.equal(value(p('4')), 4);
  t.equal(value(p(' 4 ')), 4);
  for (const bad of [0, 17, 3.5, '3.5', '-1', 'four', '', '0x4', null, true])
    t.notOk(p(bad).ok, `rejects ${JSON.stringify(bad)}`);
  const m = int(512, 65536, ' MiB')(256);
  t.notOk(m.ok);
  if (!m.ok) t.match(m.message, /512 to 65536 MiB/, 'the message carries bounds and unit');
});

t.test('bool: true/false and the env spellings', async (t) => {
  for (const y of [true, 'true', 'TRUE', '1', 'yes']) t.equal(value(bool(y)), true, `${JSON.stringify(y)} is true`);
  for (const n of [false, 'false', '0', 'no', 'No']) t.equal(value(bool(n)), false, `${JSON.stringify(n)} is false`);
  for (const bad of ['maybe', '', 1, 0, null, 'y']) t.notOk(bool(bad).ok, `rejects ${JSON.stringify(bad)}`);
});

t.test('oneOf and str', async (t) => {
  const p = oneOf(['graceful', 'hard'] as const);
  t.equal(value(p('hard')), 'hard');
  const bad = p('Hard');
  t.notOk(bad.ok, 'case matters');
  if (!bad.ok) t.match(bad.fix, 'graceful, hard', 'the fix lists the choices');
  t.equal(value(str('x')('  ./nomad  ')), './nomad', 'trimmed');
  t.notOk(str('x')('   ').ok, 'blank rejected');
  t.notOk(str('x')(42).ok, 'number rejected');
});

t.test('subnet24: private /24 networks only', async (t) => {
  for (const s of ['10.199.0.0/24', '10.0.0.0/24', '192.168.121.0/24', '10.255.255.0/24'])
    t.equal(value(subnet24('10.199.0.0/24')(s)), s, `accepts ${s}`);
  for (const s of [
    '172.16.0.0/24',
    '10.1.2.3/24',
    '10.256.0.0/24',
    '192.168.300.0/24',
    '10.0.0.0/16',
    '10.199.0.0',
    '8.8.8.0/24',
    '192.169.1.0/24',
    ' 10.199.0.0/24',
    1024,
  ]) {
    t.notOk(subnet24('10.199.0.0/24')(s).ok, `rejects ${JSON.stringify(s)}`);
  }
});

t.test('netnsName: a namespace name or "" for the host network', async (t) => {
  t.equal(value(netnsName('nrh-lab')), 'nrh-lab');
  t.equal(value(netnsName('')), '', '"" means the host network');
  for (const bad of ['has space', 'a/b', 'x'.repeat(33), '$(id)', null])
    t.notOk(netnsName(bad).ok, `rejects ${JSON.stringify(bad)}`);
});

t.test('the table: unique names, a doc line each, every field rejects a mapping', async (t) => {
  const uniq = (xs: (string | undefined)[]) => {
    const d = xs.filter((x): x is string => x !== undefined);
    return new Set(d).size === d.length;
  };
  t.ok(uniq(FIELDS.map((f) => f.yaml)), 'yaml keys are unique');
  t.ok(uniq(FIELDS.map((f) => f.flag)), 'flags are unique');
  t.ok(uniq(FIELDS.map((f) => f.env)), 'env vars are unique');
  t.ok(
    uniq(FIELDS.filter((f) => !f.aliasOf).map((f) => f.path.join('.'))),
    'config paths are unique (but for an older name of a key)',
  );
  for (const f of FIELDS.filter((x) => x.aliasOf))
    t.ok(
      FIELDS.some((g) => g.yaml === f.aliasOf && g.path.join('.') === f.path.join('.')),
      `${f.yaml} is an older name of ${f.aliasOf}`,
    );
  for (const f of FIELDS) {
    t.ok(f.doc.length > 5, `${f.yaml} has a doc line`);
    // job.vars is the one mapping-valued key (HCL variables); it rejects nested values instead
    if (f.yaml === 'job.vars') t.notOk(f.parse({ nested: { deeper: 1 } }).ok, `${f.yaml} rejects a nested mapping`);
    else t.notOk(f.parse({ nested: 1 }).ok, `${f.yaml} rejects a mapping`);
    // the list-valued keys: lab.hosts.servers/clients (existing hosts), agent_log.never/allowed (texts, [] = none
    // added) and the job files; they reject a list of something else instead
    if (/^lab\.hosts\.\w+s$|^agent_log\./.test(f.yaml)) t.notOk(f.parse([1]).ok, `${f.yaml} rejects a list of others`);
    else if (f.path.join('.') === 'job.files') t.notOk(f.parse([1]).ok, `${f.yaml} rejects a list of non-paths`);
    else t.notOk(f.parse([]).ok, `${f.yaml} rejects a list`);
  }
  t.same(
    FIELDS.filter((f) => f.secret).map((f) => f.yaml),
    ['nomad.token'],
    'the token is the one secret',
  );
});

t.test('every default passes its own field check unchanged', async (t) => {
  for (const f of FIELDS) {
    let v: unknown = DEFAULTS;
    for (const k of f.path) v = (v as Record<string, unknown>)[k];
    if (v === undefined) continue;
    const p = f.parse(v);
    t.ok(p.ok, `default of ${f.yaml} (${JSON.stringify(v)}) is valid`);
    if (p.ok) t.same(p.value, v, `default of ${f.yaml} round-trips`);
  }
  // The seed procedure: a reboot takes far longer than Nomad's 10s default grace.
  t.ok(durationSeconds(DEFAULTS.nomad.heartbeatGrace) >= 120, 'default heartbeat_grace outlasts a reboot');
});

t.test('hclVars: a mapping of names to plain values (job.vars)', async (t) => {
  t.same(value(hclVars({ count: 3, image: 'web:1', debug: true })), { count: 3, image: 'web:1', debug: true });
  t.same(value(hclVars({})), {});
  for (const bad of ['count=3', ['count', 3], null, { 'bad name': 1 }, { list: [1, 2] }, { map: { a: 1 } }])
    t.notOk(hclVars(bad).ok, `rejects ${JSON.stringify(bad)}`);
  t.match(hclVars({ list: [1] }), { ok: false, message: /\(list\)/ }, 'names the bad entry');
});

t.test(
  'strList: one path, a list of them or none; a blank one refused (job.file, job.files, --job repeated)',
  async (t) => {
    const p = strList('give a path');
    t.same(value(p('a.hcl')), ['a.hcl']);
    t.same(value(p([' a.hcl', 'b.hcl'])), ['a.hcl', 'b.hcl']);
    t.same(value(p([])), []);
    t.match(p(['a.hcl', ' ']), { ok: false, message: /non-empty string or a list of them/ });
    t.match(p(3), { ok: false });
  },
);
