// The CLI's twenty-second adversarial pass, part A (docs/cli-defects.md, rows Q253 on): run, matrix, compare, bisect,
// build and list as a new and an adversarial user.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { noLabCli } from '../helpers/cli-no-lab.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: beside the other tiers on 2 cores

/** main() in-process with a console captured; no lab may be made, the host is taken as prepared. */
const cli = (env: Record<string, string>, cwd: string) => noLabCli(cwd, env);

/** A releases "mirror" whose every file is `size` bytes of 'A' (chunked, no length); counts what it wrote. */
async function floodingMirror(size: number): Promise<{ url: string; sent: () => number; stop: () => Promise<void> }> {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x41);
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let left = size;
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    req.on('close', () => res.destroy());
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent: () => sent,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

t.test('a mirror that sends bytes without end: each file is cut at a bound, told, exit 3 (Q253)', async (t) => {
  // the real case sent without end (3.3 GB of RSS after 25 s); 96 MiB here keeps the test's own memory bounded
  // with the fix undone, where the whole body is read and the build fails later for another reason
  const size = 96 * 1024 * 1024;
  const mirror = await floodingMirror(size);
  t.teardown(mirror.stop);
  const dir = t.testdir({ 'other.asc': 'not a key\n' });
  const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg'), NOMAD_RELEASES_URL: mirror.url };
  const build = cli(env, dir);
  t.equal(await build.run('build', '1.9.10'), 3, build.err());
  t.match(build.err(), /nomad_1\.9\.10_SHA256SUMS: the server sent more than 16 MiB for nomad_1\.9\.10_SHA256SUMS/);
  t.ok(mirror.sent() < size, `the download was cut short (${mirror.sent()} of ${size} bytes sent)`);
  // the session's build layer (run, compare, matrix, bisect's endpoints) resolves releases the same way
  const before = mirror.sent();
  // (the real CLI's build layer, which resolves a session's builds before any lab: test/helpers/cli-no-lab.ts)
  const session = noLabCli(dir, { ...env, HARNESS_WORK_DIR: join(dir, 'work') }, { realChecks: true });
  const argv = ['compare', 'bridge-exec-reboot', '--before', '1.9.11', '--after', '1.9.12', '--netns', ''];
  t.equal(await session.run(...argv), 3, session.err());
  t.match(session.err(), /the server sent more than 16 MiB for nomad_1\.9\.11_SHA256SUMS/);
  t.ok(mirror.sent() - before < size, 'cut short there too');
});
