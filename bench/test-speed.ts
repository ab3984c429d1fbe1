// Measure how long unit + integration take under tap, and print a table. By default each tier as package.json runs
// it (npm run test:unit, then npm run test:integration: the same build and tap commands), one row per tier (its test
// files, tests, seconds) and the total against the goal: both tiers in under 120 s. The other variants compare the
// TypeScript loader set-ups on the same files.
// Usage: tsx bench/test-speed.ts                                        (the two tiers, as package.json runs them)
//        tsx bench/test-speed.ts --only tiers,compiled,tsx,tsx-jobs-2   (loader set-ups; tiers = npm run test:tiers)
//          [--files "test/integration/*.test.ts test/unit/*.test.ts"]   (.ts paths; compiled runs their .js twins)
// A figure, not a test: the machine's load is printed next to it (other work on a 2-core host moves it a lot).
import { $, argv, fs, os } from 'zx';
import { formatMs } from '../lib/errors.js';

/** tap's flags for the compiled files, as package.json's test:* scripts give them (the children without tap's hooks). */
const COMPILED_FLAGS = [
  '--node-arg=--enable-source-maps',
  '--node-arg=--require=./.test-build/test/helpers/processinfo-off.cjs',
  '--node-arg=--import=./.test-build/test/helpers/bare-children.js',
];

/**
 * The ways of running the same files: tap flags on top of package.json's "tap" section (tsx loader, 6 jobs).
 * Note: the section used to be tap's default (@tapjs/typescript, a ts-node fork, 2 jobs); that row of the README
 * table was measured before the change with flags ['--plugin=@tapjs/typescript'] on the old package.json.
 */
const VARIANTS: Record<string, { what: string; flags: string[]; compiled?: boolean; grouped?: boolean }> = {
  tsx: {
    what: 'the .ts files under the tsx loader (package.json\'s "tap" section), 6 at once, no coverage',
    flags: [],
  },
  'tsx-jobs-2': { what: 'tsx loader, 2 files at once (one per CPU), no coverage', flags: ['--jobs=2'] },
  tiers: {
    what: 'npm run test:tiers: compiled once (in the figure), plain JS, unit files in 4 processes, 6 at once',
    flags: COMPILED_FLAGS,
    compiled: true,
    grouped: true,
  },
  compiled: {
    what: 'compiled once (tools/build-tests.ts, in the figure), plain JS, a process per file, 6 at once',
    // a flag replaces package.json's node-arg list (--import=tsx); tap adds --enable-source-maps anyway
    flags: COMPILED_FLAGS,
    compiled: true,
  },
};
// Note: measured once (2026-12-03) and dropped: without the tap plugins no test uses (mock, snapshot, intercept,
// worker, stdin, chdir) the same files took 6m41s of CPU against 4m11s with them; coverage on cost 4m11s against 3m29s.

/** A tiny file run first for each variant: tap rebuilds its Test class when the plugin set changes (not timed). */
const WARM_UP = 'test/unit/ssh-quote.test.ts';

interface Row {
  variant: string;
  what: string;
  wallS: number;
  cpuS: number;
  files: number;
  pass: number;
  fail: number;
  skip: number;
  load: string;
}

/** Both tiers together should take less than this, here (the issue's goal for a developer's loop). */
const GOAL_S = 120;

/** The command of a tier in package.json, e.g. "npm run build:tests && tap ... \".test-build/test/unit-groups/*.test.js\"". */
async function tierCommand(script: 'test:unit' | 'test:integration'): Promise<string> {
  const pkg = JSON.parse(await fs.readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
  return pkg.scripts[script]!;
}

/** Run each tier as package.json does, one after the other; print tier, files, tests, seconds and the goal. */
async function perTier(): Promise<void> {
  const tiers = [
    { tier: 'unit', script: 'test:unit' as const, dir: 'test/unit' },
    { tier: 'integration', script: 'test:integration' as const, dir: 'test/integration' },
  ];
  const out: string[][] = [];
  let total = 0;
  for (const t of tiers) {
    const cmd = await tierCommand(t.script);
    console.error(`== ${t.tier}: ${cmd}`);
    const started = performance.now();
    // the same command npm runs (the build included), tap's own summary read from its output
    const r = await $`sh -c ${cmd}`.nothrow();
    const s = (performance.now() - started) / 1000;
    total += s;
    const summary = /^# \{ total: (\d+)(.*)\}$/m.exec(r.stdout);
    const num = (k: string) => Number(new RegExp(`${k}: (\\d+)`).exec(summary?.[2] ?? '')?.[1] ?? 0);
    const files = (await fs.readdir(t.dir)).filter((f: string) => f.endsWith('.test.ts')).length;
    await fs.writeFile(`${os.tmpdir()}/test-speed-${t.tier}.tap`, r.stdout);
    out.push([
      t.tier,
      String(files),
      summary?.[1] ?? '?',
      `${num('pass')} / ${num('fail')} / ${num('todo') + num('skip')}`,
      s.toFixed(1),
      `exit ${r.exitCode}`,
    ]);
    console.error(`   ${s.toFixed(1)} s, exit ${r.exitCode}`);
  }
  out.push([
    'total',
    '',
    '',
    '',
    total.toFixed(1),
    total < GOAL_S ? `under the goal (${GOAL_S} s)` : `over the goal (${GOAL_S} s)`,
  ]);
  const header = ['tier', 'files', 'tests', 'pass / fail / todo+skip', 'seconds', 'result'];
  const table = [header, ...out];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  console.log([line(header), rule, ...out.map(line)].join('\n'));
  const [l1, l5, l15] = os.loadavg().map((x) => x.toFixed(2));
  console.log(`load average at the end: ${l1}, ${l5}, ${l15}; ${os.cpus().length} CPUs, node ${process.version}`);
}

$.verbose = false;
if (!argv['only']) {
  await perTier();
  process.exit(0);
}

const only = String(argv['only']).split(',');
// Note: globs, not folders: without @tapjs/typescript, tap does not take .ts files from a folder (tap expands globs).
// Note: integration first, as npm run test:tiers: its long files mostly wait, so they start first and the unit
// files (CPU) fill the gaps; in the other order the longest integration files started last and set the end.
const files = String(argv['files'] ?? 'test/integration/*.test.ts test/unit/*.test.ts').split(/\s+/);
/** The compiled twin of a test path or glob (tools/build-tests.ts mirrors the tree into .test-build/). */
const compiledPath = (f: string) => `.test-build/${f.replace(/\.ts$/, '.js')}`;
/** The compiled twins of a path or glob, each file in a process of its own (the shared integration files included). */
const compiledPaths = (f: string) =>
  f === 'test/integration/*.test.ts'
    ? [compiledPath(f), '.test-build/test/integration/*.shared.js']
    : [compiledPath(f)];
/** The files as npm run test:tiers runs them: the unit files and the shared integration files in their groups. */
const groupedPaths = (f: string) =>
  f === 'test/unit/*.test.ts'
    ? ['.test-build/test/unit-groups/*.test.js']
    : f === 'test/integration/*.test.ts'
      ? [compiledPath(f), '.test-build/test/integration-groups/*.test.js']
      : [compiledPath(f)];
const unknown = only.filter((v) => !VARIANTS[v]);
if (unknown.length) {
  console.error(`test-speed: unknown variant ${unknown.join(', ')} (have ${Object.keys(VARIANTS).join(', ')})`);
  process.exit(2);
}

$.verbose = false;
const rows: Row[] = [];
const slowest = new Map<string, string[]>();

/** The files that took longest inside their own process (tap's "# time=" on each top-level line). */
function slowestFiles(tap: string, n = 5): string[] {
  const top = /^(?:not )?ok \d+ - ((?:\.test-build\/)?test\/\S+) # time=([\d.]+)ms/gm;
  const times = [...tap.matchAll(top)].map((m) => ({ file: m[1]!, ms: Number(m[2]) }));
  return times
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n)
    .map((x) => `${x.file} ${fmt(x.ms / 1000)}`);
}
for (const name of only) {
  const { what, flags, compiled, grouped } = VARIANTS[name]!;
  const paths = grouped ? files.flatMap(groupedPaths) : compiled ? files.flatMap(compiledPaths) : files;
  if (compiled) await $`npx tsx tools/build-tests.ts`;
  console.error(`== ${name}: warm-up (plugin rebuild, not timed)`);
  await $`npx tap ${flags} --disable-coverage -R silent ${compiled ? compiledPath(WARM_UP) : WARM_UP}`.nothrow();
  console.error(`== ${name}: ${paths.join(' ')}`);
  const timeFile = `${os.tmpdir()}/test-speed-${process.pid}.time`;
  /** user + sys seconds of the command /usr/bin/time just measured */
  const cpuOf = async () =>
    (await fs.readFile(timeFile, 'utf8'))
      .trim()
      .split('\n')
      .pop()!
      .split(' ')
      .map(Number)
      .reduce((a: number, b: number) => a + b, 0);
  const started = performance.now();
  let buildCpuS = 0;
  // the build is part of the figure: a compiled run always builds first
  if (compiled) {
    await $`/usr/bin/time -o ${timeFile} -f ${'%U %S'} npx tsx tools/build-tests.ts`;
    buildCpuS = await cpuOf();
  }
  const r = await $`/usr/bin/time -o ${timeFile} -f ${'%U %S'} npx tap ${flags} -R tap ${paths}`.nothrow();
  const wallS = (performance.now() - started) / 1000;
  const cpuS = buildCpuS + (await cpuOf());
  const summary = /^# \{ total: \d+(.*)\}$/m.exec(r.stdout)?.[1] ?? '';
  const num = (k: string) => Number(new RegExp(`${k}: (\\d+)`).exec(summary)?.[1] ?? 0);
  const fileCount = r.stdout.split('\n').filter((l) => /^(not )?ok \d+ - (\.test-build\/)?test\//.test(l)).length;
  await fs.writeFile(`${os.tmpdir()}/test-speed-${name}.tap`, r.stdout);
  slowest.set(name, slowestFiles(r.stdout));
  rows.push({
    variant: name,
    what,
    wallS,
    cpuS,
    files: fileCount,
    pass: num('pass'),
    fail: num('fail'),
    skip: num('skip'),
    load: os.loadavg()[0]!.toFixed(1),
  });
  console.error(`   ${fmt(wallS)} wall, exit ${r.exitCode}`);
}

/** Seconds in the harness's one duration format (lib/errors.ts formatMs). */
function fmt(s: number): string {
  return formatMs(s * 1000);
}

const header = ['variant', 'wall', 'CPU (user+sys)', 'processes', 'pass', 'fail', 'skip', 'load avg after', 'what'];
const cells = (r: Row) => [
  r.variant,
  fmt(r.wallS),
  fmt(r.cpuS),
  ...[r.files, r.pass, r.fail, r.skip].map(String),
  r.load,
  r.what,
];
const table = [header, ...rows.map(cells)];
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
console.log([line(header), rule, ...table.slice(1).map(line)].join('\n'));
for (const [name, files] of slowest) console.log(`slowest in ${name}: ${files.join(', ')}`);
console.log(`${os.cpus().length} CPUs, node ${process.version}, files: ${files.join(' ')}`);
