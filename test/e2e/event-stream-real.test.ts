// e2e tier (issue 15): the event-stream client against REAL Nomad: a dev agent of the given build (NOMAD_BINARIES /
// NOMAD_BINARY) on 127.0.0.1 with free ports, no VM. A loopback TCP proxy between client and agent stands for the SSH
// tunnel and is cut mid-run; a raw_exec task is SIGKILLed while the harness is disconnected. The stream must reconnect
// from the last index, miss nothing, repeat nothing, and show the task's failure and restart.
import t from 'tap';
import { spawn, execFileSync } from 'node:child_process';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import type { StreamEvent } from '../../lib/nomad/parse-event-stream.js';
import { waitForLeader, waitForNodeReady } from '../../lib/nomad/wait.js';
import { deadlineIn } from '../../lib/run/deadline.js';
import { waitFor } from '../../lib/run/wait.js';
import { transientFailures, transitionsFrom } from '../../lib/checks/transitions.js';
import { buildsFromEnv } from '../helpers/real-nomad.js';

t.setTimeout(5 * 60_000);
const build = buildsFromEnv()[0];
const skip = build ? false : 'no Nomad build given: set NOMAD_BINARIES=/path/a (or NOMAD_BINARY)';

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});
const until = <T>(what: string, probe: () => T | undefined, ms = 60_000) =>
  waitFor(what, async () => {
    const v = probe();
    return v ? { done: true, value: v } : { done: false, reason: 'not yet' };
  }, { deadline: deadlineIn(ms), intervals: [100, 250, 500] });

/** A loopback TCP proxy to `port` that remembers each connection's request line and can cut them all. */
async function proxy(port: number) {
  const sockets = new Set<net.Socket>();
  const requests: string[] = [];
  const server = net.createServer((c) => {
    const up = net.connect(port, '127.0.0.1');
    sockets.add(c).add(up);
    c.once('data', (b: Buffer) => void requests.push(b.toString('latin1').split('\r\n')[0]!));
    c.pipe(up).pipe(c);
    const drop = () => (c.destroy(), up.destroy(), sockets.delete(c), sockets.delete(up));
    c.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    cut: () => { const n = sockets.size; for (const s of sockets) s.destroy(); return n; },
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}

t.test(`event stream from real Nomad ${build?.version ?? ''}: a task SIGKILLed while the tunnel is cut is seen after the reconnect`, { skip }, async (t) => {
  const dir = t.testdir({});
  const [http, rpc, serf] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(join(dir, 'dev.hcl'), `ports {\n  http = ${http}\n  rpc = ${rpc}\n  serf = ${serf}\n}\nplugin "raw_exec" {\n  config {\n    enabled = true\n  }\n}\n`);
  const agent = spawn(build!.path, ['agent', '-dev', '-bind', '127.0.0.1', '-config', join(dir, 'dev.hcl')], { cwd: dir, stdio: 'ignore' });
  const exited = new Promise<void>((r) => agent.once('exit', () => r()));
  t.teardown(async () => { agent.kill('SIGINT'); await exited; });
  const direct = createNomad({ transport: createHttpTransport({ addr: `http://127.0.0.1:${http}` }) });
  await waitForLeader(direct, { deadline: deadlineIn(60_000) });
  const nodeId = await waitFor('the dev agent\'s client node registered', async () => {
    const n = (await direct.nodes()).body[0];
    return n ? { done: true, value: n.ID } : { done: false, reason: 'no node yet' };
  }, { deadline: deadlineIn(60_000) });
  const node = await waitForNodeReady(direct, { nodeId, driver: 'raw_exec' }, { deadline: deadlineIn(60_000) });

  const tunnel = await proxy(http);
  t.teardown(() => tunnel.close());
  const viaTunnel = createNomad({ transport: createHttpTransport({ addr: `http://127.0.0.1:${tunnel.port}` }) });
  const got: StreamEvent[] = [];
  const received: { receivedAtMs: number; event: StreamEvent }[] = [];
  let beats = 0;
  const ctl = new AbortController();
  const sub = viaTunnel.events({
    topics: ['Allocation:sleeper', 'Job:sleeper', `Node:${node.ID}`], signal: ctl.signal, backoffMs: [300],
    onEvents: (_i, evs) => { got.push(...evs); for (const event of evs) received.push({ receivedAtMs: Date.now(), event }); },
    onHeartbeat: () => void beats++,
  });
  t.teardown(() => ctl.abort());
  await until('the first heartbeat ({} on connect)', () => beats >= 1);

  const marker = String(3000 + Math.floor(Math.random() * 600));
  const hcl = `job "sleeper" {\n  group "g" {\n    restart {\n      attempts = 2\n      delay = "2s"\n      interval = "1m"\n      mode = "fail"\n    }\n    task "t" {\n      driver = "raw_exec"\n      config {\n        command = "/bin/sleep"\n        args = ["${marker}"]\n      }\n    }\n  }\n}\n`;
  const job = await direct.parseJob(hcl);
  await direct.registerJob(job, hcl);
  t.teardown(async () => void (await direct.stopJob('sleeper', { purge: true }).catch(() => undefined)));
  const status = (e: StreamEvent) => (e.Payload['Allocation'] as { ClientStatus?: string } | undefined)?.ClientStatus;
  await until('the alloc running in the stream', () => got.find((e) => e.Topic === 'Allocation' && status(e) === 'running'));
  const before = sub.lastIndex();

  t.ok(tunnel.cut() >= 2, 'the tunnel is cut (the stream connection with it)');
  const pid = Number(execFileSync('pgrep', ['-f', `^/bin/sleep ${marker}$`], { encoding: 'utf8' }).trim().split('\n')[0]);
  process.kill(pid, 'SIGKILL');
  await until('the restarted task running again, seen after the reconnect', () => got.find((e) => e.Index > before && status(e) === 'running' && JSON.stringify(e.Payload).includes('"Restarting"')));
  t.ok(beats >= 2, 'the reconnect got its own {} heartbeat');
  ctl.abort();
  const end = await sub.done;

  t.equal(end.reconnects, 1, 'one reconnect');
  const streams = tunnel.requests.filter((r) => r.startsWith('GET /v1/event/stream'));
  t.equal(streams.length, 2, 'two stream requests through the tunnel');
  t.match(streams[1], new RegExp(`[?&]index=${before + 1}&`), `the second one from the last index + 1 (${before + 1})`);
  t.equal(new Set(got.map((e) => `${e.Index}/${e.Topic}/${e.Type}/${e.Key}`)).size, got.length, 'no event twice');
  const indexes = got.map((e) => e.Index);
  t.same(indexes, [...indexes].sort((a, b) => a - b), 'index order across the reconnect');
  const found = transientFailures(transitionsFrom(received), 0);
  t.match(found, [{ task: 't', failure: /task t: Terminated: Exit Code: 137, Signal: 9/, recovery: /task t: Restarting/ }], 'the SIGKILL and the restart, quoted');
});
