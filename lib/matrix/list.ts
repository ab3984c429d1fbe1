// The fan-out plan of a matrix (`matrix <file> --list-cells [--json] [--shards N]`): every cell with its shard and
// the command that runs exactly it, and every non-empty shard with its command, for CI dynamic matrices. Pure.
import type { ConfigProblem } from '../errors.js';
import { quote } from '../shell/quote.js';
import type { Cell } from './expand.js';
import { suiteName } from '../plan/names.js';

/** Bump when a field changes meaning or disappears (adding fields does not bump it). */
export const CELLS_SCHEMA = 'nomad-reboot-harness/cells@1';

/** The most shards: GitHub Actions runs at most 256 jobs per matrix. */
const MAX_SHARDS = 256;

/** The program name the listed commands start with (the package's bin). */
const PROGRAM = 'reboot-harness';

/** One cell as CI sees it: a flat object, usable as a GitHub Actions `include` entry. */
interface ListedCell {
  /** the stable cell name: the `--cell` value */
  name: string;
  /** its JUnit suite name, `<scenario>@<build>/<axis>=<value>...` */
  suite: string;
  /** position in the expansion, 0-based (what the shard arithmetic uses) */
  index: number;
  /** 1-based shard of `total` this cell runs in */
  shard: number;
  total: number;
  scenario: string;
  /** axis name -> value, in file order */
  axes: Record<string, string>;
  /** arguments after the program name that run exactly this cell */
  argv: string[];
  /** the same as one POSIX sh command line */
  command: string;
}

/** One shard that has cells: what a CI job with `--shard i/N` runs. */
interface ListedShard {
  shard: number;
  total: number;
  /** `i/N`, the value of `--shard` */
  spec: string;
  /** how many cells, and their names in expansion order */
  count: number;
  cells: string[];
  argv: string[];
  command: string;
}

/** The whole listing (`--json` prints it). */
export interface CellListing {
  schema: typeof CELLS_SCHEMA;
  /** the matrix file as given on the command line */
  file: string;
  cellsInMatrix: number;
  /** N of `--shards N` (1 when not given) */
  shards: number;
  cells: ListedCell[];
  /** only shards with at least one cell (a CI job for an empty shard would do nothing) */
  shardJobs: ListedShard[];
  /** set when --shard or --cell narrowed the listing, e.g. `--shard 2/4` */
  selection?: string;
}

/** The 1-based shard of the cell at `index` among `n`: the rule of `shard()` (cell k runs in shard k mod n + 1). */
export function shardOf(index: number, n: number): number {
  return (index % n) + 1;
}

/** Parse `--shards N` (a whole number from 1 to MAX_SHARDS); a problem naming the flag otherwise. */
export function parseShardCount(text: string | undefined): number | ConfigProblem {
  if (text === undefined) return 1;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= MAX_SHARDS) return n;
  return {
    field: '--shards',
    value: text,
    message: `must be a whole number from 1 to ${MAX_SHARDS}`,
    fix: 'write e.g. --shards 4 (four CI jobs)',
  };
}

interface ListOptions {
  /** the matrix file as the user typed it (commands repeat it) */
  file: string;
  shards: number;
  /** further arguments every listed command carries (e.g. --config harness.yaml), already stripped of listing flags */
  extra?: readonly string[];
  program?: string;
}

/** List every cell (and every non-empty shard) of an expansion with the command that runs exactly it. */
export function listCells(cells: readonly Cell[], o: ListOptions): CellListing {
  const { file, shards, extra = [], program = PROGRAM } = o;
  const line = (argv: readonly string[]): string => [program, ...argv].map(quote).join(' ');
  const listed = cells.map((c): ListedCell => {
    const argv = ['matrix', file, '--cell', c.name, ...extra];
    const axes = Object.fromEntries(c.values);
    const variant = c.values.filter(([k]) => k !== 'nomad').map(([k, v]) => `${k}=${v}`);
    return {
      name: c.name,
      suite: suiteName(c.scenario, c.nomad?.name, variant),
      index: c.index,
      shard: shardOf(c.index, shards),
      total: shards,
      scenario: c.scenario,
      axes,
      argv,
      command: line(argv),
    };
  });
  const shardJobs: ListedShard[] = [];
  for (let i = 1; i <= shards; i++) {
    const mine = listed.filter((c) => c.shard === i).map((c) => c.name);
    if (!mine.length) continue;
    const argv = ['matrix', file, '--shard', `${i}/${shards}`, ...extra];
    shardJobs.push({
      shard: i,
      total: shards,
      spec: `${i}/${shards}`,
      count: mine.length,
      cells: mine,
      argv,
      command: line(argv),
    });
  }
  return { schema: CELLS_SCHEMA, file, cellsInMatrix: cells.length, shards, cells: listed, shardJobs };
}

/** The listing as a table for people: shard, cell name, command; then one line per shard job. */
export function renderCellList(l: CellListing): string {
  const w = Math.max(4, ...l.cells.map((c) => c.name.length));
  const rows = l.cells.map((c) => `${`${c.shard}/${c.total}`.padEnd(7)} ${c.name.padEnd(w)}  ${c.command}`);
  const empty = l.selection ? 0 : l.shards - l.shardJobs.length;
  const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const head = `${plural(l.cellsInMatrix, 'cell')} in ${l.file}, ${plural(l.shards, 'shard')}`;
  return [
    `${head}${empty ? ` (${empty} without cells)` : ''}${l.selection ? `; listing only ${l.selection}` : ''}`,
    '',
    `${'shard'.padEnd(7)} ${'cell'.padEnd(w)}  command`,
    ...rows,
    '',
    ...l.shardJobs.map((s) => `shard ${s.spec}: ${s.count} cell${s.count === 1 ? '' : 's'}: ${s.command}`),
    '',
  ].join('\n');
}
