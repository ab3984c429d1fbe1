// Where an agent-kill falls in the Nomad client's state-snapshot period, and what that predicts on a build with
// GH-26699's fix (nomad@c20f854d16, 1.11.0 on; 1.10.10 on its branch). A client writes an alloc's network status to
// its state DB only in PersistState: every 60 s from its start (client.go `periodicSnapshot`, `stateSnapshotIntv`)
// and at a graceful shutdown. An agent SIGKILLed after the alloc's network was set up but before the next snapshot
// restarts, finds the alloc's netns but no status in its state, and since that fix fails the alloc's restore
// ("network already configured but not found in state", client/allocrunner/network_hook.go); a kill after a snapshot
// restores it in place. The harness records the agent's age at the kill on the host's monotonic clock
// (agent.age_at_kill_s) and the host clock then (agent.killed_at_host_ms); the alloc's task events and the agent's
// journal give the rest.
import type { Test } from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Nomad's stateSnapshotIntv. */
export const SNAPSHOT_PERIOD_S = 60;
/** What each moment may be off by: an SSH round trip, a journal line's delay, a timer's slack on an emulated VM. */
const MARGIN_S = 2;
/** The error a restore without the network status fails with on a build with the fix. */
export const NO_STATUS_ERROR = 'network already configured but not found in state';

export interface RaceInput {
  /** the agent's age at the kill, s (host monotonic) */
  killAgeS: number;
  /** the host clock at the kill, ms */
  killAtMs: number;
  /** the host clock when the alloc's task was received and when its task dir was built: the network is set up between */
  receivedMs: number;
  setupMs: number;
  /** the agent's age when it started its client (its snapshot timer starts then), s */
  clientStartS: number;
}

export interface RacePrediction {
  /** restored: a snapshot fell between the network's set-up and the kill; failed: none did; near: one is too close */
  predicted: 'restored' | 'failed' | 'near';
  /** the numbers, for the test's comment and the findings */
  text: string;
}

/** Pure: the prediction from the moments (all on the agent's age axis, in seconds). */
export function predictRace(i: RaceInput): RacePrediction {
  const netLo = i.killAgeS - (i.killAtMs - i.receivedMs) / 1000;
  const netHi = i.killAgeS - (i.killAtMs - i.setupMs) / 1000;
  const snaps: number[] = [];
  for (let s = i.clientStartS + SNAPSHOT_PERIOD_S; s < i.killAgeS + SNAPSHOT_PERIOD_S; s += SNAPSHOT_PERIOD_S)
    snaps.push(s);
  const clearlyBetween = snaps.some((s) => s - MARGIN_S > netHi && s + MARGIN_S < i.killAgeS);
  const clearlyOutside = snaps.every((s) => s + MARGIN_S < netLo || s - MARGIN_S > i.killAgeS);
  const predicted = clearlyBetween ? 'restored' : clearlyOutside ? 'failed' : 'near';
  const last = snaps.filter((s) => s <= i.killAgeS).pop();
  const text =
    `agent killed at age ${i.killAgeS.toFixed(1)} s; network set up at age ${netLo.toFixed(1)}-${netHi.toFixed(1)} s; ` +
    `snapshots every ${SNAPSHOT_PERIOD_S} s from ${i.clientStartS.toFixed(1)} s` +
    (last === undefined ? ', none before the kill' : `, the last before the kill at ${last.toFixed(1)} s`) +
    ` (margin ${MARGIN_S} s): predicted ${predicted}`;
  return { predicted, text };
}

/** A journal line's host time (journalctl -o short-iso-precise), ms. */
const lineMs = (l: string) => Date.parse(l.slice(0, l.indexOf(' ')));

/**
 * The agent's age at "started client" (its snapshot timer starts with it), from the journal of the boot: the killed
 * process's first `started client` line after systemd's last "Started nomad.service" before its first line. Undefined
 * when the journal does not have them.
 */
export function clientStartAge(journal: string, pid: string): number | undefined {
  const lines = journal.split('\n');
  const first = lines.findIndex((l) => l.includes(` nomad[${pid}]:`));
  if (first < 0) return undefined;
  const started = lines
    .slice(0, first)
    .reverse()
    .find((l) => /systemd\[1\]: Started nomad\.service/.test(l));
  const client = lines.slice(first).find((l) => l.includes(` nomad[${pid}]:`) && l.includes('client: started client'));
  if (!started || !client) return undefined;
  return (lineMs(client) - lineMs(started)) / 1000;
}

interface TaskEvent {
  type: string;
  timeMs: number;
  message?: string;
}

/**
 * A kept agent-kill run's prediction and what happened: `reportsDir` holds the run's artifacts (alloc-before.json,
 * task-events.json, client-journal-nomad-current-boot.txt); undefined with the reason when something is missing.
 */
export function raceOfRun(
  run: { runId: string; properties: Record<string, string> },
  reportsDir: string,
): { prediction: RacePrediction; sawNoStatusError: boolean } | { missing: string } {
  const dir = join(reportsDir, run.runId);
  const p = run.properties;
  const age = Number(p['agent.age_at_kill_s']);
  const at = Number(p['agent.killed_at_host_ms']);
  if (!Number.isFinite(age) || !Number.isFinite(at)) return { missing: 'agent.age_at_kill_s/agent.killed_at_host_ms' };
  const files = ['alloc-before.json', 'task-events.json', 'client-journal-nomad-current-boot.txt'];
  const absent = files.filter((f) => !existsSync(join(dir, f)));
  if (absent.length) return { missing: `${absent.join(', ')} in ${dir}` };
  const alloc = JSON.parse(readFileSync(join(dir, 'alloc-before.json'), 'utf8')) as {
    id: string;
    tasks: Record<string, { events: TaskEvent[] }>;
  };
  const events = Object.values(alloc.tasks).flatMap((x) => x.events);
  // the alloc's network is set up once its task runners exist (each task's Received) and before any task's dir
  const first = (type: string) => {
    const at = events.filter((e) => e.type === type).map((e) => e.timeMs);
    return at.length ? Math.min(...at) : undefined;
  };
  const received = first('Received');
  const setup = first('Task Setup');
  const start = clientStartAge(
    readFileSync(join(dir, 'client-journal-nomad-current-boot.txt'), 'utf8'),
    p['agent.pid.before'] ?? '',
  );
  if (received === undefined || setup === undefined) return { missing: 'the alloc’s Received and Task Setup events' };
  if (start === undefined) return { missing: 'the killed agent’s start in the journal' };
  const after = JSON.parse(readFileSync(join(dir, 'task-events.json'), 'utf8')) as Record<string, TaskEvent[]>;
  const sawNoStatusError = Object.values(after)
    .flat()
    .some((e) => e.timeMs >= at - 1000 && (e.message ?? '').includes(NO_STATUS_ERROR));
  return {
    prediction: predictRace({ killAgeS: age, killAtMs: at, receivedMs: received, setupMs: setup, clientStartS: start }),
    sawNoStatusError,
  };
}

/**
 * Hold an agent-kill cell on a build with GH-26699's fix to what its place in the snapshot period predicts, and push
 * the numbers to `table`. True when the restore failed on the missing network status (the alloc-restored failure
 * asserted here): the caller's usual verdict assertions do not apply to that cell. A kill whose place is within the
 * margin of a snapshot may go either way, and the comment says which was seen.
 */
export function holdRace(
  t: Test,
  at: string,
  run: { runId: string; outcome: string; properties: Record<string, string> },
  reportsDir: string,
  restored: { status?: string; message?: string } | undefined,
  table: string[],
): boolean {
  const race = raceOfRun(run, reportsDir);
  if ('missing' in race) {
    t.fail(`${at}: the kill's place in the snapshot period could not be measured: ${race.missing}`);
    return false;
  }
  const seen = race.sawNoStatusError ? 'the restore failed' : 'restored';
  table.push(`${at}: ${race.prediction.text}; seen: ${seen}`);
  if (race.prediction.predicted === 'near')
    t.comment(`${at}: a snapshot fell within the margin, so either outcome is right; seen: ${seen}`);
  else
    t.equal(
      race.sawNoStatusError,
      race.prediction.predicted === 'failed',
      `${at}: the restore ${race.prediction.predicted === 'failed' ? 'fails' : 'holds'} as the kill's place predicts`,
    );
  if (!race.sawNoStatusError) return false;
  t.equal(restored?.status, 'failed', `${at}: alloc-restored fails`);
  t.match(restored?.message ?? '', NO_STATUS_ERROR, `${at}: alloc-restored quotes Nomad's error`);
  t.equal(run.outcome, 'failed', `${at}: the run fails`);
  return true;
}
