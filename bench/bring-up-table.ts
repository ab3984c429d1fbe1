// Pure: the bring-up benchmark's figures (bench/bring-up.ts). From a harness run's JSON report, the phases that bring
// a lab to ready: the VMs up, Nomad installed and the agents started, a leader and every client node ready; then the
// table of every topology measured, each phase beside the raw floor (plain `vagrant up` of the same machines).
import { STEP_IDS, type StepId } from '../lib/model/run.js';
import { isStepOf } from '../lib/report/step-id.js';

/** One step as the JSON report holds it. */
interface StepRec {
  name: string;
  /** its STEP_IDS id (null or absent in reports from before steps had ids) */
  id?: string | null;
  durationMs: number;
}

/** The bring-up of one harness run, by phase (ms); a phase the run did not reach is undefined. */
export interface BringUpPhases {
  upMs?: number;
  installMs?: number;
  readyMs?: number;
  /** the three together (undefined unless all three ran) */
  toReadyMs?: number;
  /** how the lab came up: the run's `lab.warm` property ("no (...)" when cold) */
  warm: string;
}

/**
 * The steps of each phase by id, in every scenario that brings up Nomad (the cluster runs' "bring up the lab" and a
 * pair's "bring up the server and client VMs" are both `lab-up`; the leader and client-ready waits `nomad-ready`).
 */
const PHASES: Record<'upMs' | 'installMs' | 'readyMs', readonly StepId[]> = {
  upMs: [STEP_IDS.labUp],
  installMs: [STEP_IDS.install],
  readyMs: [STEP_IDS.nomadReady],
};

/** The bring-up phases of the first run of a JSON report (`--report-json`). Throws naming what the report lacks. */
export function bringUpPhases(report: unknown): BringUpPhases {
  const run = (report as { runs?: { steps?: StepRec[]; properties?: Record<string, string> }[] }).runs?.[0];
  if (!run?.steps) throw new Error('the report holds no run with steps (give the file --report-json wrote)');
  const sum = (ids: readonly StepId[]): number | undefined => {
    const steps = run.steps!.filter(isStepOf(ids));
    return steps.length ? steps.reduce((n, s) => n + s.durationMs, 0) : undefined;
  };
  const upMs = sum(PHASES.upMs);
  const installMs = sum(PHASES.installMs);
  const readyMs = sum(PHASES.readyMs);
  const all = upMs !== undefined && installMs !== undefined && readyMs !== undefined;
  return {
    ...(upMs !== undefined ? { upMs } : {}),
    ...(installMs !== undefined ? { installMs } : {}),
    ...(readyMs !== undefined ? { readyMs } : {}),
    ...(all ? { toReadyMs: upMs + installMs + readyMs } : {}),
    warm: run.properties?.['lab.warm'] ?? '(not said)',
  };
}

/** One topology measured: the harness's bring-up and the raw floor's `vagrant up` of the same machines. */
export interface BringUpRow {
  /** "1+2" */
  topology: string;
  harness: BringUpPhases;
  /** plain `vagrant up` of the same machines (with `vagrant ssh-config`), undefined when not measured */
  rawUpMs?: number;
}

const s = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
const x = (a: number | undefined, b: number | undefined): string =>
  a !== undefined && b ? `${(a / b).toFixed(2)}x` : '—';

/**
 * The table, one row per topology: each harness phase, the raw `vagrant up`, the harness's bring-up against it, and
 * how a topology's bring-up compares with the first row's (is N machines N times one?).
 */
export function bringUpTable(rows: readonly BringUpRow[]): string {
  const first = rows[0];
  const lines = [
    '| topology | VMs up (harness) | install + agents | leader + nodes ready | to ready | raw `vagrant up` | VMs up vs raw | VMs up vs first row |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) =>
      [
        `\`${r.topology}\``,
        s(r.harness.upMs),
        s(r.harness.installMs),
        s(r.harness.readyMs),
        s(r.harness.toReadyMs),
        s(r.rawUpMs),
        x(r.harness.upMs, r.rawUpMs),
        r === first ? '1.00x' : x(r.harness.upMs, first?.harness.upMs),
      ].join(' | '),
    ),
  ];
  return lines.map((l) => (l.startsWith('| ') ? l : `| ${l} |`)).join('\n');
}

/** "1+2" -> { servers: 1, clients: 2 }; undefined for anything else. */
export function parseTopologyArg(text: string): { servers: number; clients: number } | undefined {
  const m = /^(\d+)\+(\d+)$/.exec(text.trim());
  return m ? { servers: Number(m[1]), clients: Number(m[2]) } : undefined;
}
