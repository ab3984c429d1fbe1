// The Nomad API stand-in keeps an idle kept-alive connection open, as Nomad's agent does (command/agent/http.go sets
// no IdleTimeout or ReadTimeout): the harness's client (lib/nomad/transport.ts) reuses its sockets, and a stand-in that
// closed them after Node's default (5 s, and 1 s more) made a reused socket read ECONNRESET under load, a failure real Nomad never gives.
import http from 'node:http';
import t from 'tap';
import { startFakeNomad } from '../helpers/fake-nomad/index.js';

// past Node's default keepAliveTimeout (5 s) and the 1 s Node 20's server adds to it (measured: closed at 6.0 s)
const IDLE_MS = 6_600;

const get = (agent: http.Agent, addr: string) =>
  new Promise<{ status: number; reused: boolean; socket: import('node:net').Socket }>((resolve, reject) => {
    const r = http.get(`${addr}/v1/status/leader`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: r.reusedSocket, socket: r.socket! }));
    });
    r.on('error', reject);
  });

t.test('an idle kept-alive connection is still open and reused after more than 6 s', async (t) => {
  const fake = await startFakeNomad({ timeline: 'restored', clientNodeName: 'vm' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(async () => {
    agent.destroy();
    await fake.close();
  });
  const first = await get(agent, fake.addr);
  t.equal(first.status, 200, 'the first request answered');
  let closedAt: number | undefined;
  const start = Date.now();
  first.socket.once('close', () => {
    closedAt = Date.now() - start;
  });
  await new Promise((r) => setTimeout(r, IDLE_MS));
  t.equal(closedAt, undefined, `the stand-in did not close the idle connection in ${IDLE_MS} ms`);
  const second = await get(agent, fake.addr);
  t.equal(second.status, 200, 'the second request answered');
  t.ok(second.reused, 'the second request went over the same connection');
});
