// Flags only some scenarios (or some fault kinds) read. Given to a session none of whose cells reads them they would be
// ignored without a word (`--upgrade-to` on bridge-exec-reboot ran the scenario without upgrading anything,
// `--off-for` with a graceful reboot kept nothing off), so they are refused.
import type { ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Scenario } from '../run/scenario.js';
import { FAULTS } from '../faults/registry.js';
import { SCENARIOS } from './scenarios.js';
import { readSchedule } from '../steps/fault-step.js';

interface ScenarioFlag {
  /** whether a shipped scenario reads this flag's value */
  uses(s: Scenario): boolean;
  /** who does, for the message */
  who: string;
  /** what to run instead, for the fix */
  instead: string;
}

const upgrade: ScenarioFlag = {
  uses: (s) => s.name === 'upgrade-in-place',
  who: 'upgrade-in-place',
  instead: 'upgrade-in-place',
};
const nomad: ScenarioFlag = {
  uses: (s) => s.needsNomad,
  who: 'the scenarios that install Nomad',
  instead: 'a scenario that installs Nomad',
};
/** what the cluster scenarios read: the leader, the service's gaps, the drain, the probes during the fault window */
const cluster: ScenarioFlag = {
  uses: (s) => s.name === 'rolling-reboot' || s.name === 'server-reboot',
  who: 'rolling-reboot and server-reboot',
  instead: 'rolling-reboot or server-reboot',
};
/** what only bridge-exec-reboot reads: the restart of a task after the fault (task-env), the agent's sampling window */
const wholeAlloc: ScenarioFlag = {
  uses: (s) => s.name === 'bridge-exec-reboot',
  who: 'bridge-exec-reboot',
  instead: 'bridge-exec-reboot',
};
const FLAGS: Record<string, ScenarioFlag> = {
  'upgrade-to': upgrade,
  'upgrade-mode': upgrade,
  nomad,
  'nomad-binary': nomad,
  'leader-within': cluster,
  'max-gap': cluster,
  'probe-interval': cluster,
  'drain-deadline': cluster,
  'restart-task': wholeAlloc,
  'resources-window': wholeAlloc,
};

/**
 * Whether a cell injects its fault kind at all: upgrade-in-place reboots only under --upgrade-mode upgrade-then-reboot
 * (an upgrade, or a restart of the same build, disrupts nothing else).
 */
const injectsFault = (c: HarnessConfig): boolean =>
  c.scenario !== 'upgrade-in-place' || c.upgrade.mode === 'upgrade-then-reboot';

/**
 * A problem per flag on the command line that no scenario of the session reads, and per fault option (--off-for,
 * --partition-for, …) that the fault kind of no cell reads. A user scenario may read any key, so a session with one
 * refuses nothing. A session that installs builds of its own (compare: --before/--after) leaves --nomad and
 * --nomad-binary to its planner. `configs`: the session's base config and every cell's (their fault kinds).
 */
export function unusedFlagProblems(
  values: Record<string, unknown>,
  scenarios: readonly Scenario[],
  configs: readonly HarnessConfig[],
  o: { installsItsBuilds: boolean },
): ConfigProblem[] {
  if (!scenarios.length) return [];
  if (scenarios.some((s) => !SCENARIOS.includes(s)))
    return scenarios.every((s) => !SCENARIOS.includes(s)) ? userScheduleProblems(configs) : [];
  const names = scenarios.map((s) => s.name).join(', ');
  const byScenario = Object.entries(FLAGS).flatMap(([flag, f]) => {
    if (values[flag] === undefined || scenarios.some((s) => f.uses(s))) return [];
    if (o.installsItsBuilds && f === nomad) return [];
    return [
      {
        field: `--${flag}`,
        value: values[flag],
        message: `is not used by ${names} (only by ${f.who}), so it would be ignored`,
        fix: `drop --${flag}, or run ${f.instead}`,
      },
    ];
  });
  // Note: a session that failed to plan has one config resolved from the flags alone, which names no scenario; the
  // fault flags are judged for the scenario named all the same, with the other problems
  const named = scenarios.length === 1 ? configs.map((c) => ({ ...c, scenario: scenarios[0]!.name })) : [...configs];
  return [...byScenario, ...unusedDrainDeadline(values, named, byScenario), ...unusedFaultOptions(values, named)];
}

/**
 * The fault schedule of a session of user scenarios only, read as the cluster scenarios read it (a user scenario may
 * read `reboot.faults`, so it is not refused): the file that is not there, not YAML or not a schedule is told with the
 * rest. No shipped scenario judged it, so `run <yours> --faults nope.yaml --plan` said 0 (Q208). Each file once.
 */
function userScheduleProblems(configs: readonly HarnessConfig[]): ConfigProblem[] {
  const files = [...new Set(configs.flatMap((c) => (c.reboot.faults ? [c.reboot.faults] : [])))];
  return files.flatMap((faults) => {
    const read = readSchedule({ reboot: { faults } } as HarnessConfig);
    return read && !read.ok ? read.problems : [];
  });
}

/**
 * --drain-deadline with --drain=false: the deadline of a drain that never happens (a schedule's steps may drain, so a
 * session with one reads it). Not told again when the scenario refuses the flag as a whole.
 */
function unusedDrainDeadline(
  values: Record<string, unknown>,
  configs: readonly HarnessConfig[],
  told: readonly ConfigProblem[],
): ConfigProblem[] {
  if (values['drain'] !== false || values['drain-deadline'] === undefined) return [];
  if (told.some((p) => p.field === '--drain-deadline') || configs.some((c) => c.reboot.faults)) return [];
  return [
    {
      field: '--drain-deadline',
      value: values['drain-deadline'],
      message: 'is the deadline of a drain, and --drain=false drains nothing, so it would be ignored',
      fix: 'drop --drain-deadline, or drop --drain=false',
    },
  ];
}

/**
 * A fault option given on the command line that the fault of no cell reads: `--off-for` belongs to power-off and
 * power-loss-all, `--partition-for` to partition and leader-partition. A schedule (--faults) may name any kind and
 * takes the option as its steps' default, so a cell with one reads them all.
 */
function unusedFaultOptions(values: Record<string, unknown>, configs: readonly HarnessConfig[]): ConfigProblem[] {
  if (!configs.length) return [];
  if (!configs.some(injectsFault)) {
    // no cell injects a fault: --reboot, a schedule, its seed and every fault option would be ignored
    const given = ['reboot', 'faults', 'seed', ...FAULTS.options.flatMap((o) => (o.flag ? [o.flag] : []))].filter(
      (f) => values[f] !== undefined,
    );
    // a schedule is run by the cluster scenarios only, so upgrade-then-reboot would not read it either
    const schedule = (flag: string) => flag === 'faults' || flag === 'seed';
    // harness.yaml's (or a matrix's) schedule, as the other one-fault scenarios refuse it
    const written = configs.find((c) => c.reboot.faults)?.reboot.faults;
    const file: ConfigProblem[] =
      written !== undefined && values['faults'] === undefined
        ? [
            {
              field: 'reboot.faults',
              value: written,
              message: 'upgrade-in-place runs no fault schedule, so it would be ignored',
              fix: 'drop reboot.faults, or run rolling-reboot or server-reboot with it',
            },
          ]
        : [];
    return [
      ...file,
      ...given.map((flag) => ({
        field: `--${flag}`,
        value: values[flag],
        message: `is not read: upgrade-in-place reboots the client only with --upgrade-mode upgrade-then-reboot (this run: ${configs[0]!.upgrade.mode}), so it would be ignored`,
        fix: schedule(flag)
          ? `drop --${flag} (a fault schedule is run by rolling-reboot and server-reboot)`
          : `drop --${flag}, or give --upgrade-mode upgrade-then-reboot`,
      })),
    ];
  }
  if (configs.every((c) => c.reboot.faults) && values['reboot'] !== undefined)
    // every step of a schedule names its own fault (`fault:` is required); --reboot would be ignored
    return [
      {
        field: '--reboot',
        value: values['reboot'],
        message: 'is not read with a fault schedule (--faults): each of its steps names its own fault',
        fix: 'drop --reboot, or write the kind as the fault of the schedule’s steps',
      },
    ];
  if (configs.some((c) => c.reboot.faults)) return [];
  // the seed of a schedule's picks: with no schedule there is nothing to pick
  const seed: ConfigProblem[] =
    values['seed'] === undefined
      ? []
      : [
          {
            field: '--seed',
            value: values['seed'],
            message: "is the seed of a fault schedule's picks (--faults); no schedule is given, so it would be ignored",
            fix: 'drop --seed, or give --faults <schedule file> (docs/faults.md)',
          },
        ];
  const kinds = [...new Set(configs.filter(injectsFault).map((c) => c.reboot.kind))];
  const options = FAULTS.options.flatMap((opt) => {
    const flag = opt.flag;
    if (!flag || values[flag] === undefined) return [];
    const readers = FAULTS.kinds.filter((k) => k.options.includes(opt) || k.reads?.includes(opt.yaml));
    if (readers.some((k) => kinds.includes(k.name))) return [];
    const who = readers.map((k) => k.name).join(' and ');
    return [
      {
        field: `--${flag}`,
        value: values[flag],
        message: `is read only by --reboot ${who}; this run's fault is ${kinds.join(', ')}, so it would be ignored`,
        fix: `drop --${flag}, or give --reboot ${readers[0]!.name}`,
      },
    ];
  });
  return [...seed, ...options];
}

/**
 * A fault kind written beside a fault schedule, which it would not reach: every step of a schedule names its own fault.
 * A matrix's `axes.reboot` with cells that run a schedule (its defaults', harness.yaml's, --faults) would name each
 * cell by a kind it never injected (`reboot=hard` passing on a schedule of graceful reboots); `reboot.kind` beside
 * `reboot.faults` in one file (harness.yaml, a matrix's defaults) would be ignored. `--reboot` with `--faults` is
 * `unusedFaultOptions`'.
 */
export function kindBesideScheduleProblems(
  plan: { cells: readonly { variant: readonly string[]; config: HarnessConfig }[] } | undefined,
  o: {
    harness?: { data: unknown; name: string } | undefined;
    matrixFile?: { data: unknown; name: string } | undefined;
  },
): ConfigProblem[] {
  const reboot = (d: unknown) => (d as { reboot?: { kind?: unknown; faults?: unknown } } | null | undefined)?.reboot;
  const files = [
    ...(o.harness ? [{ at: o.harness.name, field: 'reboot', r: reboot(o.harness.data) }] : []),
    ...(o.matrixFile
      ? [
          {
            at: o.matrixFile.name,
            field: 'defaults.reboot',
            r: reboot((o.matrixFile.data as { defaults?: unknown } | null | undefined)?.defaults),
          },
        ]
      : []),
  ];
  const inFile = files.flatMap(({ at, field, r }) =>
    r?.kind !== undefined && r.faults !== undefined
      ? [
          {
            field: `${at}: ${field}.kind`,
            value: r.kind,
            message: `is not read with the fault schedule beside it (${field}.faults): each of its steps names its own fault`,
            fix: `drop ${field}.kind, or drop ${field}.faults and inject the one kind`,
          },
        ]
      : [],
  );
  // a kind in a file where no cell injects one (upgrade-in-place without upgrade-then-reboot) would be ignored, as
  // `--reboot` and the file's reboot.faults are refused there (unusedFaultOptions)
  const cells = plan?.cells ?? [];
  const unread = cells.length && !cells.some((c) => injectsFault(c.config)) ? cells[0]!.config.upgrade.mode : undefined;
  const kindUnread = files.flatMap(({ at, field, r }) =>
    unread !== undefined && r?.kind !== undefined && r.faults === undefined
      ? [
          {
            field: `${at}: ${field}.kind`,
            value: r.kind,
            message: `is not read: upgrade-in-place reboots the client only with upgrade.mode upgrade-then-reboot (this run: ${unread}), so it would be ignored`,
            fix: `drop ${field}.kind, or give ${field === 'reboot' ? '--upgrade-mode upgrade-then-reboot' : 'defaults.upgrade.mode: upgrade-then-reboot'}`,
          },
        ]
      : [],
  );
  const scheduled = cells.filter((c) => c.config.reboot.faults);
  const kinds = [
    ...new Set(scheduled.flatMap((c) => c.variant.filter((v) => v.startsWith('reboot=')).map((v) => v.slice(7)))),
  ];
  const axis =
    kinds.length && o.matrixFile
      ? [axisBesideSchedule(o.matrixFile.name, kinds, scheduled[0]!.config.reboot.faults!)]
      : [];
  return [...inFile, ...kindUnread, ...axis];
}

/** A matrix's `axes.reboot` (`kinds`) over cells that run the fault `schedule`: each would run it, not its kind. */
export function axisBesideSchedule(matrixName: string, kinds: readonly string[], schedule: string): ConfigProblem {
  return {
    field: `${matrixName}: axes.reboot`,
    value: kinds,
    message: `names each cell's fault, and its cells run the fault schedule ${schedule} (reboot.faults), whose steps name their own: the cells ${kinds.map((k) => `reboot=${k}`).join(', ')} would each run that schedule, not the kind they are named by`,
    fix: 'drop axes.reboot (the schedule says what each cell does), or drop reboot.faults (--faults)',
  };
}

/**
 * A fault schedule that some cells of a session read and others do not: upgrade-in-place without
 * `--upgrade-mode upgrade-then-reboot` runs no fault at all (a session of only such cells is `unusedFaultOptions`').
 * Those cells would run without it, and their reports would not say so.
 */
export function scheduleUnreadByCells(
  plan: { cells: readonly { key: string; scenario: string; config: HarnessConfig }[] } | undefined,
): ConfigProblem[] {
  const cells = plan?.cells ?? [];
  const scheduled = cells.filter((c) => c.config.reboot.faults);
  const unread = scheduled.filter((c) => !injectsFault(c.config));
  if (!unread.length || unread.length === scheduled.length) return [];
  const keys = unread.map((c) => c.key);
  return [
    {
      field: 'reboot.faults (--faults)',
      value: unread[0]!.config.reboot.faults,
      message: `is not read by ${keys.length === 1 ? 'cell' : `${keys.length} cells`} ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ` and ${keys.length - 3} more` : ''}: upgrade-in-place runs no fault schedule, so ${keys.length === 1 ? 'it' : 'they'} would run without it`,
      fix: 'run the upgrade-in-place cells without the schedule (a matrix of their own)',
    },
  ];
}

/**
 * A matrix's `axes.reboot` over cells that inject no fault (and `buildUnreadByCells`'s `axes.nomad`): upgrade-in-place reboots the client only under
 * `upgrade.mode: upgrade-then-reboot`, so its cells `reboot=graceful` and `reboot=hard` would run the same upgrade,
 * each reported under the name of a fault it never injected (as `--reboot` on such a run is refused).
 */
export function kindUnreadByCells(
  plan:
    | {
        cells: readonly {
          key: string;
          variant: readonly string[];
          properties?: Record<string, string>;
          config: HarnessConfig;
        }[];
      }
    | undefined,
  matrixFile: { name: string; data?: unknown } | undefined,
): ConfigProblem[] {
  const kindOf = (c: { variant: readonly string[] }) => c.variant.find((v) => v.startsWith('reboot='))?.slice(7);
  const unread = (plan?.cells ?? []).filter((c) => kindOf(c) !== undefined && !injectsFault(c.config));
  if (!matrixFile) return [];
  const builds = [...buildUnreadByCells(plan, matrixFile), ...upgradeUnreadByCells(plan, matrixFile)];
  if (!unread.length) return builds;
  const keys = unread.map((c) => c.key);
  const modes = [...new Set(unread.map((c) => c.config.upgrade.mode))].join(', ');
  return [
    {
      field: `${matrixFile.name}: axes.reboot`,
      value: [...new Set(unread.map(kindOf))],
      message: `names each cell's fault, and ${keys.length === 1 ? 'cell' : `${keys.length} cells`} ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ` and ${keys.length - 3} more` : ''} inject none: upgrade-in-place reboots the client only with upgrade.mode upgrade-then-reboot (${keys.length === 1 ? 'this cell' : 'these cells'}: ${modes}), so each would run the same upgrade under the name of a fault it never injected`,
      fix: 'give defaults.upgrade.mode: upgrade-then-reboot, or run upgrade-in-place in a matrix without axes.reboot',
    },
    ...builds,
  ];
}

/**
 * A matrix's `axes.nomad` over cells of a shipped scenario that installs no Nomad (cni-ipam-reboot): its cells
 * `nomad=a` and `nomad=b` ran the same thing, each reported under a build it never installed, where `run
 * cni-ipam-reboot --nomad …` is refused as ignored (Q210). A user scenario may read any key, so its cells are left.
 */
function buildUnreadByCells(
  plan: { cells: readonly { key: string; properties?: Record<string, string>; config: HarnessConfig }[] } | undefined,
  matrixFile: { name: string },
): ConfigProblem[] {
  const buildOf = (c: { properties?: Record<string, string> }) => c.properties?.['matrix.nomad'];
  const installs = (name: string) => SCENARIOS.find((s) => s.name === name)?.needsNomad ?? true;
  const unread = (plan?.cells ?? []).filter((c) => buildOf(c) !== undefined && !installs(c.config.scenario));
  if (!unread.length) return [];
  const keys = unread.map((c) => c.key);
  const names = [...new Set(unread.map((c) => c.config.scenario))].join(', ');
  return [
    {
      field: `${matrixFile.name}: axes.nomad`,
      value: [...new Set(unread.map(buildOf))],
      message: `names each cell's Nomad build, and ${keys.length === 1 ? 'cell' : `${keys.length} cells`} ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ` and ${keys.length - 3} more` : ''} install none: ${names} runs no Nomad, so each would run the same thing under the name of a build it never installed`,
      fix: `run ${names} in a matrix without axes.nomad`,
    },
  ];
}

/**
 * A matrix's `axes.nomad[i].upgrade_to` whose cells are all of shipped scenarios other than upgrade-in-place: none
 * reads it, so each would run without the upgrade the file names, where `run bridge-exec-reboot --upgrade-to …` is
 * refused as ignored (Q333). A user scenario may read any key, so a build with one of its cells is left.
 */
function upgradeUnreadByCells(
  plan: { cells: readonly { properties?: Record<string, string>; config: HarnessConfig }[] } | undefined,
  matrixFile: { name: string; data?: unknown },
): ConfigProblem[] {
  const entries = (matrixFile.data as { axes?: { nomad?: unknown } } | null | undefined)?.axes?.nomad;
  if (!Array.isArray(entries)) return [];
  const reads = (name: string) => name === 'upgrade-in-place' || !SCENARIOS.some((s) => s.name === name);
  return entries.flatMap((e, i) => {
    const entry = e as { name?: unknown; upgrade_to?: unknown } | null;
    if (entry?.upgrade_to === undefined) return [];
    const cells = (plan?.cells ?? []).filter((c) => c.properties?.['matrix.nomad'] === String(entry.name));
    if (!cells.length || cells.some((c) => reads(c.config.scenario))) return [];
    const names = [...new Set(cells.map((c) => c.config.scenario))].join(', ');
    return [
      {
        field: `${matrixFile.name}: axes.nomad[${i}].upgrade_to`,
        value: entry.upgrade_to,
        message: `is read by upgrade-in-place only, and the cells of build ${String(entry.name)} run ${names}, so it would be ignored`,
        fix: `drop upgrade_to, or add upgrade-in-place to the file's scenario`,
      },
    ];
  });
}
