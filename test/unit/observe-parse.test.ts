// parseBootInfo / parseCurlProbe over outputs recorded from the real tools (test/fixtures/observe), and outputs they must reject.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseBootInfo, parseCurlProbe } from '../../lib/parse/host-observe.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/observe/${name}`, import.meta.url), 'utf8');
const curl = (name: string) => ({
  code: Number(fixture(`${name}.code`).trim()),
  stdout: fixture(`${name}.stdout`),
  stderr: fixture(`${name}.stderr`),
});
const probe = (name: string, url = 'http://172.26.64.2:8080/') => {
  const c = curl(name);
  return parseCurlProbe('client', url, c.code, c.stdout, c.stderr);
};

t.test('parseBootInfo: recorded boot_id + /proc/uptime', async (t) => {
  const text = fixture('boot-info.txt');
  const [id] = text.split('\n');
  const b = parseBootInfo(text);
  t.equal(b.bootId, id);
  t.ok(b.uptimeS !== undefined && b.uptimeS > 0, `uptime ${b.uptimeS}`);
  t.same(
    parseBootInfo('0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c\r\n12.34 5.67\r\n'),
    { bootId: '0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c', uptimeS: 12.34 },
    'CRLF tolerated',
  );
});

t.test('parseBootInfo: a missing or garbled uptime is unknown, never 0', async (t) => {
  t.same(parseBootInfo('0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c\n'), {
    bootId: '0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c',
    uptimeS: undefined,
  });
  t.equal(parseBootInfo('0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c\ncat: /proc/uptime: No such file\n').uptimeS, undefined);
  t.equal(parseBootInfo('0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c\n-5 1\n').uptimeS, undefined);
});

t.test('parseBootInfo rejects output without a boot_id, saying what it got', async (t) => {
  for (const bad of [
    '',
    '12.34 5.67\n',
    'cat: /proc/sys/kernel/random/boot_id: Permission denied\n',
    '0B7A4C2E-1F3D-4E5A-8B9C-0D1E2F3A4B5C\n1 1\n',
    '0b7a4c2e1f3d4e5a8b9c0d1e2f3a4b5c\n1 1\n',
  ]) {
    t.throws(
      () => parseBootInfo(bad),
      { message: /^expected a boot_id UUID on the first line, got / },
      JSON.stringify(bad),
    );
  }
  t.throws(
    () => parseBootInfo('Permission denied'),
    { message: /"Permission denied"/ },
    'the excerpt is in the message',
  );
});

t.test('parseCurlProbe: recorded curl results', async (t) => {
  t.same(probe('curl-200'), {
    from: 'client',
    url: 'http://172.26.64.2:8080/',
    ok: true,
    status: 200,
    error: undefined,
  });
  t.same(probe('curl-404'), {
    from: 'client',
    url: 'http://172.26.64.2:8080/',
    ok: false,
    status: 404,
    error: 'HTTP 404',
  });
  t.match(probe('curl-refused'), {
    ok: false,
    status: undefined,
    error: /^curl: \(7\) Failed to connect to 127\.0\.0\.1 port 1/,
  });
  t.match(probe('curl-timeout'), { ok: false, status: undefined, error: /^curl: \(28\) Operation timed out/ });
});

t.test('parseCurlProbe: edge cases', async (t) => {
  t.match(parseCurlProbe('server', 'u', 0, '503', ''), { ok: false, status: 503, error: 'HTTP 503' });
  t.match(parseCurlProbe('server', 'u', 0, '301', ''), { ok: true, status: 301 }, '3xx is an answer');
  t.match(
    parseCurlProbe('server', 'u', 7, '000', ''),
    { ok: false, status: undefined, error: 'curl exited 7' },
    'no stderr: the exit code',
  );
  t.match(
    parseCurlProbe('server', 'u', 0, '<html>hi</html>200', ''),
    { ok: false, status: undefined, error: /expected an HTTP status/ },
    'a body leaked into stdout is not an answer',
  );
  t.match(
    parseCurlProbe('server', 'u', 56, '200', 'curl: (56) Recv failure: Connection reset by peer\n'),
    { ok: false, status: 200, error: 'curl: (56) Recv failure: Connection reset by peer' },
    'a curl error wins over a status',
  );
  t.match(parseCurlProbe('server', 'u', 127, '', 'sh: 1: curl: not found\n'), {
    ok: false,
    error: 'sh: 1: curl: not found',
  });
});
