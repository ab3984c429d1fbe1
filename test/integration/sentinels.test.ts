// The sentinels through the real CLI code path against STAND-INS (the Nomad API stand-in and the stand-in lab, no VMs,
// not Nomad): a rolling reboot on three servers where each server is read on its own (the stand-in answers a request
// naming a server from that server's view, test/helpers/fake-nomad/servers.ts), equal, with one server diverging (an
// alloc missing at the same index) and one lagging; and an agent-kill whose restart systemd reports.
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { ServersRead } from '../../lib/model/sentinels.js';
import { runOnPair, runOnStandIn } from '../helpers/stand-in-run.js';
import { standInCluster } from '../helpers/stand-in-env.js';

const THREE = { servers: 3 as const, clients: 2 };
const serversRead = (run: { artifacts: { name: string; path: string }[] } | undefined): ServersRead => {
  const file = run?.artifacts.find((a) => a.name === 'servers-read.json');
  if (!file) throw new Error('the run kept no servers-read.json');
  return JSON.parse(readFileSync(file.path, 'utf8')) as ServersRead;
};

t.test('three servers agree: each read on its own, side by side', async (t) => {
  const r = await runOnStandIn(t, (cwd) => standInCluster(THREE, { cwd }), 'rolling-reboot', [
    '--servers',
    '3',
    '--clients',
    '2',
  ]);
  t.equal(r.code, 0, 'exit 0');
  const v = r.verdicts.get('servers-agree');
  t.equal(v?.label, 'passed');
  t.match(v?.message, /end of the run: 3 servers read, 1 round within 60s; the servers agree/);
  const read = serversRead(r.run);
  t.same(
    read.reads.map((x) => x.server),
    ['server-1', 'server-2', 'server-3'],
  );
  t.same(read.reads[1]!.voters, ['server-1.global', 'server-2.global', 'server-3.global']);
  t.ok((read.reads[0]!.state?.allocs?.length ?? 0) >= 2, 'the allocs read from the server');
  t.equal(r.verdicts.get('no-agent-crash')?.label, 'passed');
  t.match(r.verdicts.get('no-agent-crash')?.message, /on 5 machines/);
  t.equal(r.verdicts.get('fault-exercised')?.label, 'passed', 'each client rebooted with a new boot id');
});

t.test('a diverging server fails servers-agree with the alloc it lacks, exit 1', async (t) => {
  const r = await runOnStandIn(
    t,
    (cwd) => standInCluster(THREE, { cwd }),
    'rolling-reboot',
    ['--servers', '3', '--clients', '2'],
    { before: (s) => void s.nomad.servers.views.set('server-2', { lacksAlloc: true }) },
  );
  t.equal(r.code, 1, 'exit 1');
  const v = r.verdicts.get('servers-agree');
  t.equal(v?.label, 'failed');
  t.match(v?.message, /^diverged: allocs differ at applied index \d+/);
  const read = serversRead(r.run);
  t.equal(read.rounds, 2, 'read again once: two rounds alike are a settled state, not the whole bound');
  t.equal(read.reads[1]!.state!.allocs!.length + 1, read.reads[0]!.state!.allocs!.length);
});

t.test('a lagging server and a keyring that is not ready', async (t) => {
  const r = await runOnStandIn(
    t,
    (cwd) => standInCluster(THREE, { cwd }),
    'rolling-reboot',
    ['--servers', '3', '--clients', '2'],
    {
      before: (s) => {
        s.nomad.servers.views.set('server-3', { behindBy: 4 });
        s.nomad.servers.views.set('server-1', { keyringNotReady: true });
      },
    },
  );
  t.equal(r.code, 1);
  const v = r.verdicts.get('servers-agree');
  t.equal(v?.label, 'failed');
  t.match(v?.message, /^diverged: server-1: keyring not ready \(no keys listed\)/);
  const read = serversRead(r.run);
  t.equal(read.reads[2]!.appliedIndex! + 4, read.reads[0]!.appliedIndex);
});

t.test('agent-kill on the pair: its one systemd restart is expected and proves the fault ran', async (t) => {
  const r = await runOnPair(t, 'bridge-exec-reboot', 'restored', ['--reboot', 'agent-kill']);
  t.equal(r.code, 0, 'exit 0');
  t.equal(r.verdicts.get('no-agent-crash')?.label, 'passed');
  t.match(r.verdicts.get('fault-exercised')?.message, /every fault took effect \(2 effects seen\)/);
  t.equal(r.verdicts.get('agent-log-invariants')?.label, 'passed');
  t.equal(r.verdicts.get('servers-agree')?.label, 'passed');
});

t.test('a fault on a server: the servers read right after it too, then at the end', async (t) => {
  const r = await runOnStandIn(t, (cwd) => standInCluster(THREE, { cwd }), 'server-reboot', [
    '--servers',
    '3',
    '--clients',
    '2',
  ]);
  // Note: the stand-in elects no other leader among three servers (new-leader fails here): only the reads are judged
  const v = r.verdicts.get('servers-agree');
  t.equal(v?.label, 'passed');
  t.match(
    v?.message,
    /end of the run: 3 servers read, .*; the servers agree; so they did right after the fault on a server$/,
  );
  const file = r.run?.artifacts.find((a) => a.name === 'servers-read-after-faults.json');
  t.ok(file, 'the reads after the fault are kept');
  const reads = JSON.parse(readFileSync(file!.path, 'utf8')) as ServersRead[];
  t.equal(reads.length, 1, 'one wave hit a server');
  t.match(reads[0]!.when, /^after graceful of server-\d \(wave 1\)$/);
  t.same(
    reads[0]!.reads.map((x) => x.server),
    ['server-1', 'server-2', 'server-3'],
  );
});
