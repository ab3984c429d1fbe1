// The e2e helper that places an agent-kill in the client's 60 s state-snapshot period (test/helpers/snapshot-race.ts):
// its prediction at the edges, and the agent's client start read from a real journal (1.11.3, session 7's warm cell).
import t from 'tap';
import { clientStartAge, predictRace } from '../helpers/snapshot-race.js';

const base = { killAtMs: 100_000, receivedMs: 60_000, setupMs: 68_000, clientStartS: 3 };

t.test('a snapshot between the network set-up and the kill: restored; none: failed; one too close: near', async (t) => {
  // kill at age 77: the network set up at age 37-45, the snapshot at 63: restored
  t.equal(predictRace({ ...base, killAgeS: 77 }).predicted, 'restored');
  // kill at age 55: set up at 15-23, the first snapshot at 63 comes after the kill
  t.equal(predictRace({ ...base, killAgeS: 55 }).predicted, 'failed');
  // kill at age 125: set up at 85-93, the snapshot at 123 is 2 s before the kill
  t.equal(predictRace({ ...base, killAgeS: 124 }).predicted, 'near');
  // a snapshot inside the set-up window: it may have come before the status was there
  t.equal(predictRace({ ...base, killAgeS: 64 + 40, receivedMs: 60_000, setupMs: 70_000 }).predicted, 'near');
  t.match(predictRace({ ...base, killAgeS: 77 }).text, /killed at age 77.0 s; network set up at age 37.0-45.0 s/);
});

t.test('the client start from the journal: the killed PID’s "started client" after systemd started it', async (t) => {
  const journal = [
    '2026-12-07T02:09:13.416455+0000 client systemd[1]: Started nomad.service - Nomad.',
    '2026-12-07T02:09:14.990133+0000 client nomad[677]: ==> Starting Nomad agent...',
    '2026-12-07T02:09:16.732747+0000 client nomad[677]:     2026-12-07T02:09:16.538Z [INFO]  client: started client: node_id=31c4dc23',
    '2026-12-07T02:19:32.010322+0000 client systemd[1]: Started nomad.service - Nomad.',
    '2026-12-07T02:19:33.518423+0000 client nomad[675]: ==> Starting Nomad agent...',
    '2026-12-07T02:19:35.314998+0000 client nomad[675]:     2026-12-07T02:19:35.121Z [INFO]  client: started client: node_id=1a49bdc8',
  ].join('\n');
  t.equal(clientStartAge(journal, '675')?.toFixed(2), '3.30');
  t.equal(clientStartAge(journal, '677')?.toFixed(2), '3.32');
  t.equal(clientStartAge(journal, '999'), undefined);
});
