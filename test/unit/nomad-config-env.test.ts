// lib/nomad/config-env.ts: NOMAD_* environment variables, explicit config first, all problems at once.
import t from 'tap';
import {
  DEFAULT_NOMAD_ADDR,
  describeConnection,
  parseGoBool,
  resolveNomadConnection,
  type NomadConnection,
} from '../../lib/nomad/config-env.js';

const ok = (r: ReturnType<typeof resolveNomadConnection>): NomadConnection => {
  if (!r.ok) throw new Error(`unexpected problems: ${JSON.stringify(r.problems)}`);
  return r.connection;
};

t.test('defaults with an empty environment', async (t) => {
  const c = ok(resolveNomadConnection({}, {}));
  t.same(c, { addr: DEFAULT_NOMAD_ADDR, token: undefined, namespace: undefined, region: undefined, tls: {} });
});

t.test('reads every NOMAD_* variable', async (t) => {
  const c = ok(
    resolveNomadConnection(
      {},
      {
        NOMAD_ADDR: 'https://127.0.0.1:4646',
        NOMAD_TOKEN: 's3cr3t-token',
        NOMAD_NAMESPACE: 'ops',
        NOMAD_REGION: 'eu',
        NOMAD_CACERT: '/ca.pem',
        NOMAD_CAPATH: '/cas',
        NOMAD_CLIENT_CERT: '/c.pem',
        NOMAD_CLIENT_KEY: '/k.pem',
        NOMAD_TLS_SERVER_NAME: 'server.global.nomad',
        NOMAD_SKIP_VERIFY: '1',
      },
    ),
  );
  t.same(c, {
    addr: 'https://127.0.0.1:4646',
    token: 's3cr3t-token',
    namespace: 'ops',
    region: 'eu',
    tls: {
      caFile: '/ca.pem',
      caPath: '/cas',
      certFile: '/c.pem',
      keyFile: '/k.pem',
      serverName: 'server.global.nomad',
      skipVerify: true,
    },
  });
});

t.test('explicit config beats the environment; empty env values count as unset', async (t) => {
  const c = ok(
    resolveNomadConnection(
      {
        addr: 'http://127.0.0.1:39001',
        token: 'from-config',
        tls: { serverName: 'client.global.nomad', skipVerify: false },
      },
      {
        NOMAD_ADDR: 'http://127.0.0.1:4646',
        NOMAD_TOKEN: 'from-env',
        NOMAD_NAMESPACE: '',
        NOMAD_TLS_SERVER_NAME: 'x',
        NOMAD_SKIP_VERIFY: 'true',
      },
    ),
  );
  t.equal(c.addr, 'http://127.0.0.1:39001');
  t.equal(c.token, 'from-config');
  t.equal(c.namespace, undefined);
  t.equal(c.tls.serverName, 'client.global.nomad');
  t.equal(c.tls.skipVerify, false);
});

t.test('reports all bad values at once', async (t) => {
  const r = resolveNomadConnection(
    {},
    { NOMAD_ADDR: '127.0.0.1:4646', NOMAD_SKIP_VERIFY: 'yes', NOMAD_CLIENT_CERT: '/c.pem' },
  );
  t.equal(r.ok, false);
  if (r.ok) return;
  t.same(
    r.problems.map((p) => p.field),
    ['NOMAD_ADDR', 'NOMAD_SKIP_VERIFY', 'NOMAD_CLIENT_KEY'],
  );
  t.match(r.problems[0]!.fix, /http:\/\/host:port/);
  const r2 = resolveNomadConnection({ addr: 'ftp://x' }, {});
  t.equal(!r2.ok && r2.problems[0]!.field, 'nomad.addr', 'names the config field when the bad value came from config');
});

t.test('unix socket addresses are accepted', async (t) => {
  t.equal(ok(resolveNomadConnection({}, { NOMAD_ADDR: 'unix:/run/nomad.sock' })).addr, 'unix:/run/nomad.sock');
});

t.test('parseGoBool follows strconv.ParseBool', async (t) => {
  for (const s of ['1', 't', 'T', 'TRUE', 'true', 'True']) t.equal(parseGoBool(s), true, s);
  for (const s of ['0', 'f', 'F', 'FALSE', 'false', 'False']) t.equal(parseGoBool(s), false, s);
  for (const s of ['yes', 'on', 'tRuE', '']) t.equal(parseGoBool(s), undefined, JSON.stringify(s));
});

t.test('describeConnection never shows the token', async (t) => {
  const c = ok(
    resolveNomadConnection({}, { NOMAD_TOKEN: 'b2f9c1d8-secret', NOMAD_SKIP_VERIFY: 'true', NOMAD_NAMESPACE: 'ops' }),
  );
  const d = describeConnection(c);
  t.notMatch(d, /b2f9c1d8/);
  t.match(d, /token set/);
  t.match(d, /TLS verification OFF/);
  t.match(describeConnection(ok(resolveNomadConnection({}, {}))), /no token/);
});
