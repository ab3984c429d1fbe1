// The recorded payloads of real Nomad under test/fixtures are committed as they came, but for tokens: a workload
// identity (a signed JWT) or a Nomad secret ID must never be kept, even from a throwaway agent, since a reader cannot
// tell a throwaway token from a real one and tooling that scans for leaked tokens would flag it.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../fixtures', import.meta.url));
const JWT = /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/;
const SECRET_ID = /"(SecretID|NOMAD_TOKEN)"\s*:\s*"[0-9a-f]{8}-[0-9a-f]{4}-/;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else yield p;
  }
}

t.test('no fixture holds a signed token or a secret ID', async (t) => {
  const found: string[] = [];
  let n = 0;
  for (const f of files(ROOT)) {
    n++;
    const text = readFileSync(f, 'latin1');
    if (JWT.test(text) || SECRET_ID.test(text)) found.push(f.slice(ROOT.length + 1));
  }
  t.ok(n > 100, `read the fixtures (${n} files)`);
  t.same(found, [], 'fixtures with a token');
});

t.test('the patterns find what they are for', async (t) => {
  t.match('x eyJhbGciOiJSUzI1NiIsImtpZCI6IjE1.eyJhdWQiOiJub21hZC5pbyIsImlhdCI6.c2lnbmF0dXJlc2lnbmF0dXJl y', JWT);
  t.match('{"SecretID": "4c8a3b1e-0d2f-4e6a-9b7c-1234567890ab"}', SECRET_ID);
  t.notMatch('{"SecretID": ""}', SECRET_ID);
});
