// The CLI's eighth adversarial pass (docs/cli-defects.md, rows Q76 on), through the real main() with the stand-ins: a
// bisect resumed or replayed from a bisect-inputs.json or a bisect-log.jsonl of another shape than a bisect writes.
import t from 'tap';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import type { BuildLayer } from '../../lib/cli/deps.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { bisectFixture, linearHistory } from '../helpers/bisect-fixture.js';

t.setTimeout(2 * 60_000);

/** Builds that are never reached: every test here ends before the first try. */
const noBuilds: BuildLayer = {
  async check() {
    return [];
  },
  async resolve() {
    throw new Error('no build is made in these tests');
  },
};

/** A bisect folder as a bisect writes it, its inputs changed by `change`, and its log lines. */
function bisectFolder(
  root: string,
  cwd: string,
  fx: { dir: string; shas: string[] },
  change: (inputs: Record<string, unknown>) => Record<string, unknown>,
  log: string[] = [],
): string {
  const dir = join(root, 'bisect-x');
  mkdirSync(dir, { recursive: true });
  const inputs = {
    schema: 'nomad-reboot-harness/bisect-log@1',
    values: { source: `git:${fx.dir}`, good: fx.shas[0], bad: fx.shas[2], check: 'no-duplicate-ip', netns: '' },
    scenario: 'bridge-exec-reboot',
    source: `git:${fx.dir}`,
    good: { ref: fx.shas[0], sha: fx.shas[0] },
    bad: { ref: fx.shas[2], sha: fx.shas[2] },
    check: 'no-duplicate-ip',
    tries: 3,
    startedAt: '2026-12-06T20:00:00.000Z',
    cwd,
  };
  writeFileSync(join(dir, 'bisect-inputs.json'), JSON.stringify(change(inputs), null, 2));
  writeFileSync(join(dir, 'bisect-log.jsonl'), log.map((l) => `${l}\n`).join(''));
  return dir;
}

async function bisect(cwd: string, argv: string[]) {
  const s = standInPerRun({}, { cwd });
  const code = await main(argv, { ...s.deps, builds: noBuilds });
  return { code, out: s.out.join(''), err: s.err.join('') };
}

t.test('--resume of a bisect-inputs.json of another shape is told, not an internal error (Q76)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'pass', 'fail'));
  for (const [what, change] of [
    ['good: null', (i: Record<string, unknown>) => ({ ...i, good: null })],
    ['cwd: 5', (i: Record<string, unknown>) => ({ ...i, cwd: 5 })],
    ['good as a text', (i: Record<string, unknown>) => ({ ...i, good: 'v2.0.4' })],
    ['values: null', (i: Record<string, unknown>) => ({ ...i, values: null })],
  ] as const) {
    const cwd = t.testdir({});
    const dir = bisectFolder(cwd, cwd, fx, change);
    const r = await bisect(cwd, ['bisect', '--resume', dir]);
    t.equal(r.code, 2, `${what}: ${r.err}`);
    t.match(r.err, /--resume: its bisect-inputs\.json is not one a bisect wrote: "(good|cwd|values)" is/, what);
    t.notMatch(r.err, /internal error|at \w+ \(|is required|0 problems/, `${what}: no stack, no flag nobody gave`);
  }
});

t.test('--resume and --replay of a log holding an event a bisect does not write are refused (Q77)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'pass', 'fail'));
  for (const line of ['null', `{"e":"try","commit":"${fx.shas[0]}"}`, `{"e":"build","commit":"${fx.shas[0]}"}`]) {
    const cwd = t.testdir({});
    const dir = bisectFolder(cwd, cwd, fx, (i) => i, [line]);
    const resumed = await bisect(cwd, ['bisect', '--resume', dir]);
    t.equal(resumed.code, 2, `--resume, ${line}: ${resumed.err}`);
    t.match(resumed.err, /--resume: bisect-log\.jsonl holds an event a bisect does not write \(event 1 of 1: /);
    t.notMatch(resumed.err, /internal error/);
    const log = join(cwd, 'elsewhere.jsonl');
    writeFileSync(log, `${line}\n`);
    const replayed = await bisect(cwd, [
      'bisect',
      '--source',
      `git:${fx.dir}`,
      '--netns',
      '',
      '--good',
      fx.shas[0]!,
      '--bad',
      fx.shas[2]!,
      '--check',
      'no-duplicate-ip',
      '--replay',
      log,
    ]);
    t.equal(replayed.code, 2, `--replay, ${line}: ${replayed.err}`);
    t.match(replayed.err, /--replay: holds an event a bisect does not write/);
    t.notMatch(replayed.err, /internal error/);
  }
});
