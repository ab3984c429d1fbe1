// Pure: a fault schedule (`reboot.faults`, a YAML file): a short sequence of faults, each with its target, its own
// options and a wait before the next, e.g. reboot client-1, then partition the leader for 30 s, then power-loss-all.
// A target `any-client` or `any-server` is picked with a seeded generator, so a run records its seed and `--seed`
// replays the same picks.
import type { Field } from '../config/fields.js';
import { timeoutSeconds } from '../config/durations.js';
import type { HarnessConfig } from '../config/schema.js';
import type { ConfigProblem } from '../errors.js';
import type { RebootKind } from '../model/kinds.js';
import { parseTarget, targetProblem, targetText, type TargetSpec } from '../model/target.js';
import { clientSlots, serverSlots, type Topology } from '../model/topology.js';
import { FAULTS } from './registry.js';

/** The target words a schedule adds to --target's: one machine of a role, picked by the seed. */
const PICK_WORDS = ['any-client', 'any-server'] as const;
type PickWord = (typeof PICK_WORDS)[number];

/** One step as written: its kind, target (absent: the run's), own options, and the wait after it. */
interface ScheduleStep {
  fault: RebootKind;
  target: TargetSpec | { kind: 'pick'; word: PickWord } | undefined;
  /** the kind's own options, at their config paths under `reboot` (e.g. partitionForS) */
  options: Partial<HarnessConfig['reboot']>;
  waitS: number;
}

export interface FaultSchedule {
  /** the file's own seed (a run's --seed wins) */
  seed: number | undefined;
  steps: ScheduleStep[];
}

/**
 * A schedule with problems: the steps whose kind and target parsed (with what else of them parsed), each at its index
 * in the file (a hole where its kind or target is wrong), and the targets that parsed, so that their kinds and targets
 * are judged with the file's problems, not after they are fixed.
 */
export interface PartialSchedule {
  seed: number | undefined;
  steps: readonly (ScheduleStep | undefined)[];
  /** each step's written target that parsed, its kind wrong or not (a wrong kind hides no problem of its target) */
  targets: readonly ScheduleStep['target'][];
}

/** A step with its target resolved against a topology: what the run does. */
export interface ResolvedStep {
  fault: RebootKind;
  target: TargetSpec;
  /** how the target was chosen: as written, the run's, or picked by the seed */
  chosen: string;
  options: Partial<HarnessConfig['reboot']>;
  waitS: number;
}

const WAIT = timeoutSeconds(0, 3600);
const STEP_KEYS = ['fault', 'target', 'wait'];
/** At most this many faults in one run: a schedule is a short story, not a soak. */
const MAX_STEPS = 20;

/** A kind's own step keys (its options and those it reads, without `reboot.`), each with its field. */
function stepFields(kind: RebootKind): Map<string, Field> {
  const def = FAULTS.get(kind);
  const fields = [...def.options, ...FAULTS.options.filter((o) => def.reads?.includes(o.yaml))];
  return new Map(fields.map((o) => [o.yaml.replace(/^reboot\./, ''), o]));
}

/** Every kind's step keys: what a step whose kind is wrong is read against (the first kind's field for a shared key). */
const ANY_STEP_FIELDS = new Map<string, Field>();
for (const n of FAULTS.names)
  for (const [k, f] of stepFields(n as RebootKind)) if (!ANY_STEP_FIELDS.has(k)) ANY_STEP_FIELDS.set(k, f);

/**
 * Parse a schedule (the YAML file's value): `{ seed?, faults: [{ fault, target?, wait?, <option>? }] }`, where an
 * option is one of the kind's own keys without `reboot.` (partition_for, off_for, flap_count, ...). Every problem at
 * once, each naming `file` and the step; a wrong kind's fix offers `offered` (the kinds the scenario takes; default
 * every kind).
 */
export function parseSchedule(
  raw: unknown,
  file: string,
  offered?: readonly string[],
): { ok: true; schedule: FaultSchedule } | { ok: false; problems: ConfigProblem[]; parsed?: PartialSchedule } {
  const problems: ConfigProblem[] = [];
  const p = (field: string, value: unknown, message: string, fix: string) =>
    problems.push({ field: `${file}: ${field}`, value: value as never, message, fix });
  const doc = (raw ?? {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    p(
      '(file)',
      raw,
      'must be a mapping with `faults:` (a list)',
      'write faults: [{ fault: graceful, target: client-1 }]',
    );
    return { ok: false, problems };
  }
  for (const k of Object.keys(doc))
    if (k !== 'seed' && k !== 'faults') p(k, k, 'is not a key of a schedule', 'use seed and faults');
  let seed: number | undefined;
  if (doc['seed'] !== undefined) {
    const s = doc['seed'];
    if (typeof s === 'number' && Number.isInteger(s) && s >= 0 && s <= 0xffffffff) seed = s;
    else p('seed', s, 'must be a whole number from 0 to 4294967295', 'write e.g. seed: 42');
  }
  const list = doc['faults'];
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_STEPS) {
    p(
      'faults',
      list,
      `must be a list of 1 to ${MAX_STEPS} faults`,
      'write faults: [{ fault: graceful, target: client-1 }]',
    );
    return { ok: false, problems };
  }
  const steps: (ScheduleStep | undefined)[] = [];
  const targets: ScheduleStep['target'][] = [];
  list.forEach((item, i) => {
    const at = `faults[${i}]`;
    steps.push(undefined);
    targets.push(undefined);
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      p(at, item, 'must be a mapping with `fault:`', 'write { fault: graceful, target: client-1 }');
      return;
    }
    const e = item as Record<string, unknown>;
    const written = readTarget(e['target']);
    if ('target' in written) targets[i] = written.target;
    const kind = e['fault'];
    const kindOk = typeof kind === 'string' && (FAULTS.names as readonly string[]).includes(kind);
    const kinds = `use one of: ${(offered ?? FAULTS.names).join(', ')}`;
    if (kind === undefined || kind === null) p(`${at}.fault`, kind, 'is required', kinds);
    else if (!kindOk) p(`${at}.fault`, kind, 'is not a fault kind', kinds);
    // a wrong kind's keys are read against every kind's options, so none of their problems waits for the kind's fix
    const own = kindOk ? stepFields(kind as RebootKind) : ANY_STEP_FIELDS;
    const options: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e)) {
      if (STEP_KEYS.includes(k)) continue;
      const f = own.get(k);
      if (!f) {
        const has = [...STEP_KEYS, ...own.keys()].join(', ');
        const of = kindOk ? `a ${kind} step` : 'any fault step';
        p(`${at}.${k}`, k, `is not a key of ${of}`, `use one of: ${has}`);
        continue;
      }
      const r = f.parse(v);
      if (!r.ok) p(`${at}.${k}`, v, r.message, r.fix ?? '');
      else options[f.path![1]!] = r.value;
    }
    if ('problem' in written) p(`${at}.target`, e['target'], written.problem.message, written.problem.fix);
    let waitS = 0;
    if (e['wait'] !== undefined) {
      const w = WAIT(e['wait']);
      if (w.ok) waitS = w.value as number;
      else p(`${at}.wait`, e['wait'], w.message, w.fix ?? '');
    }
    // a step whose kind and target parsed is judged with what else of it parsed (a wrong wait or option hides no
    // problem of its kind or target); without its target, the run's would be judged in its place: a hole
    if (kindOk && 'target' in written)
      steps[i] = {
        fault: kind as RebootKind,
        target: written.target,
        options: options as ScheduleStep['options'],
        waitS,
      };
  });
  return problems.length
    ? { ok: false, problems, parsed: { seed, steps, targets } }
    : { ok: true, schedule: { seed, steps: steps as ScheduleStep[] } };
}

/** A step's `target` as written: absent, a machine or role, a pick word, or why it is none. Pure. */
function readTarget(raw: unknown): { target: ScheduleStep['target'] } | { problem: { message: string; fix: string } } {
  if (raw === undefined) return { target: undefined };
  if (raw !== null && typeof raw === 'object')
    return {
      problem: { message: 'must be one machine or role, not a list or a mapping', fix: 'e.g. target: client-1' },
    };
  const s = String(raw);
  if ((PICK_WORDS as readonly string[]).includes(s)) return { target: { kind: 'pick', word: s as PickWord } };
  const t = parseTarget(s);
  return 'error' in t
    ? { problem: { message: `${t.error}, ${PICK_WORDS.join(' or ')}`, fix: 'e.g. target: leader' } }
    : { target: t };
}

/** A small seeded generator (mulberry32): the same seed, the same picks, on every machine. Pure. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Each step's target on `topology`: as written (checked against it), the run's `fallback` when absent, or one machine
 * of the role picked with the seed; problems name the step. A partial schedule's holes run nothing: only their written
 * targets are judged (its problems are read, not its steps).
 */
export function resolveSchedule(
  s: FaultSchedule | PartialSchedule,
  topology: Topology,
  seed: number,
  fallback: TargetSpec,
): { ok: true; steps: ResolvedStep[] } | { ok: false; problems: ConfigProblem[] } {
  const next = seeded(seed);
  const problems: ConfigProblem[] = [];
  const steps: ResolvedStep[] = [];
  for (const [i, step] of s.steps.entries()) {
    if (!step) {
      // a step whose kind is wrong: its written target is still judged on the topology, and nothing is run
      const t = 'targets' in s ? s.targets[i] : undefined;
      const bad = t && t.kind !== 'pick' ? targetProblem(t, topology) : undefined;
      if (t && t.kind !== 'pick' && bad) problems.push({ field: `faults[${i}].target`, value: targetText(t), ...bad });
      continue;
    }
    const base = { fault: step.fault, options: step.options, waitS: step.waitS };
    if (!step.target) {
      steps.push({ ...base, target: fallback, chosen: 'the run’s target' });
    } else if (step.target.kind === 'pick') {
      const slots = step.target.word === 'any-client' ? clientSlots(topology) : serverSlots(topology);
      const name = slots[Math.floor(next() * slots.length)]!.name;
      steps.push({ ...base, target: { kind: 'machine', name }, chosen: `${step.target.word}, seed ${seed}` });
    } else {
      const bad = targetProblem(step.target, topology);
      if (bad) problems.push({ field: `faults[${i}].target`, value: targetText(step.target), ...bad });
      else steps.push({ ...base, target: step.target, chosen: 'as written' });
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, steps };
}

/** One line per step, as the report records the schedule a run ran (`faults.schedule`). Pure. */
export function scheduleText(steps: readonly ResolvedStep[]): string {
  return steps
    .map((s, i) => {
      const opts = Object.entries(s.options)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      const wait = s.waitS ? `; then wait ${s.waitS}s` : '';
      return `${i + 1}. ${s.fault} on ${targetText(s.target)} (${s.chosen})${opts ? ` ${opts}` : ''}${wait}`;
    })
    .join('\n');
}

/** The config a step runs with: the run's, with the step's kind and its own options. Pure. */
export function stepConfig(config: HarnessConfig, step: Pick<ResolvedStep, 'fault' | 'options'>): HarnessConfig {
  return { ...config, reboot: { ...config.reboot, ...step.options, kind: step.fault } };
}
