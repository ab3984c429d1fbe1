// What a matrix file that did not plan still lets be judged with its own problems, so that fixing them brings no new
// ones in a second round: the builds its axes.nomad entries name, its fault schedule's own problems (the planner reads
// neither once the file has a problem of its own), and an axes.reboot beside a schedule (told by the plan's cells
// otherwise, so missing whenever any cell had a problem).
import type { ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { BuildRef } from '../plan/session-plan.js';
import { readSchedule } from '../steps/fault-step.js';
import { axisBesideSchedule } from './scenario-flags.js';
import { expectContradictions, expectTarget } from './session-input.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const faultsOf = (d: unknown): string | undefined => {
  const f = isRecord(d) && isRecord(d['reboot']) ? d['reboot']['faults'] : undefined;
  return typeof f === 'string' && f !== '' ? f : undefined;
};

/**
 * The builds, schedule problems and axis problem of a matrix file whose plan failed. `fileParsed`: the planner read
 * the file (it returned the cells' builds): its builds and schedule were judged, only the axis rule is left.
 * `schedule`: the one the cells run (--faults, else the file's defaults, else harness.yaml's).
 */
export function unplannedMatrixProblems(
  mf: { data: unknown; name: string; dir: string },
  o: { fileParsed: boolean; flags: Record<string, unknown>; harness: unknown; told?: readonly ConfigProblem[] },
): { builds: BuildRef[]; problems: ConfigProblem[] } {
  const data = isRecord(mf.data) ? mf.data : {};
  const axes = isRecord(data['axes']) ? data['axes'] : {};
  const flag = typeof o.flags['faults'] === 'string' && o.flags['faults'] !== '' ? o.flags['faults'] : undefined;
  const schedule = flag ?? faultsOf(data['defaults']) ?? faultsOf(o.harness);
  const kinds = Array.isArray(axes['reboot']) ? axes['reboot'].filter((k): k is string => typeof k === 'string') : [];
  const axis = schedule && kinds.length ? [axisBesideSchedule(mf.name, kinds, schedule)] : [];
  if (o.fileParsed) return { builds: [], problems: axis };
  const nomad = Array.isArray(axes['nomad']) ? axes['nomad'] : [];
  const builds = nomad.flatMap((e, i): BuildRef[] =>
    !isRecord(e)
      ? []
      : (['binary', 'upgrade_to'] as const).flatMap((k) =>
          typeof e[k] === 'string' && e[k] !== ''
            ? [
                {
                  field: `${mf.name}: axes.nomad[${i}].${k}`,
                  spec: e[k] as string,
                  cwd: mf.dir,
                  role: k === 'binary' ? ('nomad' as const) : ('upgrade-to' as const),
                },
              ]
            : [],
        ),
  );
  const read = schedule ? readSchedule({ reboot: { faults: schedule } } as HarnessConfig) : undefined;
  const flagged = unplannedAxisFlagProblems(mf, o.flags, o.told ?? []);
  return { builds, problems: [...(read && !read.ok ? read.problems : []), ...axis, ...flagged] };
}

/** The flags that set what a matrix axis varies, as lib/plan/matrix.ts refuses them beside the axis. */
const AXIS_FLAGS: Record<string, readonly string[]> = {
  nomad: ['nomad', 'nomad-binary'],
  reboot: ['reboot'],
  box: ['box'],
  driver: ['driver'],
  servers: ['servers'],
  clients: ['clients'],
};

/**
 * A flag for an axis the file lists, when the file has a problem of its own (Q201): the planner refuses the flag only
 * for a file that parsed, so `--nomad` beside axes.nomad was told in a second exit 2, once `parallel: 0` was fixed.
 * Worded as the planner words it (a file that parsed is told once, by the planner).
 */
export function unplannedAxisFlagProblems(
  mf: { data: unknown; name: string },
  flags: Record<string, unknown>,
  told: readonly ConfigProblem[],
): ConfigProblem[] {
  const data = isRecord(mf.data) ? mf.data : {};
  const axes = isRecord(data['axes']) ? data['axes'] : {};
  const file = mf.name;
  const all = Object.entries(AXIS_FLAGS).flatMap(([axis, names]): ConfigProblem[] =>
    Array.isArray(axes[axis]) && (axes[axis] as unknown[]).length
      ? names
          .filter((flag) => flags[flag] !== undefined)
          .map((flag) => ({
            field: `--${flag}`,
            value: flags[flag],
            message: `every cell's ${axis} comes from axes.${axis} in ${file}, so the flag would be ignored`,
            fix: `drop --${flag}, or change axes.${axis} in ${file}`,
          }))
      : [],
  );
  return all.filter((p) => !told.some((q) => q.field === p.field && q.message === p.message));
}

/**
 * The expectations of a matrix file's builds the planner takes without a word: an entry's `expect` that says both
 * `fail` and `pass` for one target (the last one won), and an `--expect` the entry's own expectation for the same
 * target overrides in its cells (the flag was ignored there; a flag for an axis the file varies is refused likewise).
 */
function matrixExpectProblems(
  mf: { data: unknown; name: string } | undefined,
  values: Record<string, unknown>,
): ConfigProblem[] {
  const data = mf && isRecord(mf.data) ? mf.data : {};
  const nomad = isRecord(data['axes']) && Array.isArray(data['axes']['nomad']) ? data['axes']['nomad'] : [];
  const flags = Array.isArray(values['expect']) ? (values['expect'] as string[]) : [];
  return nomad.flatMap((e, i): ConfigProblem[] => {
    const raw = isRecord(e) ? e['expect'] : undefined;
    const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
      (x): x is string => typeof x === 'string',
    );
    const field = `${mf!.name}: axes.nomad[${i}].expect`;
    const ignored = flags.filter((f) =>
      list.some((x) => expectTarget(x)[0] === expectTarget(f)[0] && expectTarget(x)[1] !== expectTarget(f)[1]),
    );
    return [
      ...expectContradictions(list, field),
      ...(ignored.length
        ? [
            {
              field: '--expect',
              value: ignored,
              message: `is overridden by ${field} (${JSON.stringify(list)}) in the cells of that build, so the flag would be ignored there`,
              fix: `drop the flag, or change axes.nomad[${i}].expect in ${mf!.name}`,
            },
          ]
        : []),
    ];
  });
}

/**
 * `repeat` in a matrix file's own `defaults:`: a matrix runs each cell once (its --repeat and HARNESS_REPEAT are refused
 * by the planner), so the key would be ignored without a word. harness.yaml's `repeat` is left alone: a file shared
 * with `run`.
 */
function matrixRepeatProblems(req: { matrixFile?: { data: unknown; name: string } | undefined }): ConfigProblem[] {
  const data = req.matrixFile?.data;
  const repeat = isRecord(data) && isRecord(data['defaults']) ? data['defaults']['repeat'] : undefined;
  if (repeat === undefined || repeat === 1) return [];
  return [
    {
      field: `${req.matrixFile!.name}: defaults: repeat`,
      value: repeat,
      message: 'applies to run only: a matrix runs each cell once (an infrastructure error is retried once)',
      fix: "remove it; to measure a cell's flake rate, run it with reboot-harness run … --repeat N",
    },
  ];
}

/** What the planner does not tell of a matrix file's own: `repeat` under its defaults, its builds' expectations. */
export const matrixFileProblems = (
  req: { matrixFile?: { data: unknown; name: string } | undefined },
  values: Record<string, unknown>,
): ConfigProblem[] => [...matrixRepeatProblems(req), ...matrixExpectProblems(req.matrixFile, values)];
