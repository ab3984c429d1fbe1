import t from 'tap';
import { machineSlots, slotName, topologyLabel, topologyOf, type Topology } from '../../lib/model/topology.js';

const PAIR: Topology = { servers: 1, clients: 1 };

t.test('a pair keeps the names server and client', async (t) => {
  t.same(
    machineSlots(PAIR).map((s) => s.name),
    ['server', 'client'],
  );
  t.equal(topologyLabel(PAIR), '1+1');
});

t.test('other topologies number their machines from 1, servers first', async (t) => {
  const three = { servers: 3, clients: 2 } as const;
  t.same(
    machineSlots(three).map((s) => `${s.name}:${s.role}:${s.index}`),
    ['server-1:server:1', 'server-2:server:2', 'server-3:server:3', 'client-1:client:1', 'client-2:client:2'],
  );
  t.equal(slotName({ servers: 1, clients: 2 }, 'server', 1), 'server-1');
  t.equal(topologyLabel(three), '3+2');
});

t.test('topologyOf reads a topology back from machine names, and refuses a set that is not one', async (t) => {
  t.same(topologyOf(['server', 'client']), PAIR);
  t.same(topologyOf(['client-2', 'server-1', 'client-1']), { servers: 1, clients: 2 });
  t.equal(topologyOf(['server-1', 'server-2', 'client-1']), undefined, 'two servers is no quorum size');
  t.equal(topologyOf(['server', 'client-1']), undefined, 'mixed naming');
  t.equal(topologyOf(['server']), undefined, 'no client');
});
