// The CLI's eighth adversarial pass (docs/cli-defects.md, rows Q76 on), through the real main() with the stand-ins: a
// bisect resumed or replayed from a bisect-inputs.json or a bisect-log.jsonl of another shape than a bisect writes, and
// doctor's and setup's output, which went around the console's redactor.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import type { BuildLayer } from '../../lib/cli/deps.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { CLI_COMPILED } from '../helpers/cli-child.js';
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

t.test(
  'doctor --nomad <a URL with credentials> does not print them: its report goes through the console redactor (Q78)',
  async (t) => {
    const pw = 'Q78D0ct0rPassw0rd';
    const dir = t.testdir({ shims: {} });
    const shims = join(dir, 'shims');
    // Note: every VM tool doctor looks at refuses at once (nothing is probed, created or started); node and ip stay
    for (const tool of [
      'vagrant',
      'virsh',
      'qemu-system-x86_64',
      'qemu-img',
      'VBoxManage',
      'systemctl',
      'sudo',
      'ssh',
    ]) {
      writeFileSync(join(shims, tool), '#!/bin/sh\necho "refused by the test" >&2\nexit 97\n');
      chmodSync(join(shims, tool), 0o755);
    }
    const env = {
      ...process.env,
      PATH: `${shims}:${process.env['PATH']}`,
      HARNESS_WORK_DIR: join(dir, 'work'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      NOMAD_RELEASES_URL: 'http://127.0.0.1:9/',
    };
    // the compiled CLI (CLI_COMPILED): what is asked is its report's redaction, not the bin's loader
    const cli = CLI_COMPILED;
    for (const json of [[], ['--json']]) {
      const r = spawnSync(
        process.execPath,
        [cli, 'doctor', '--nomad', `https://bob:${pw}@example.com/nomad`, '--netns', '', ...json],
        { cwd: dir, env, encoding: 'utf8', timeout: 90_000 },
      );
      t.equal(r.status, 3, `doctor ${json.join(' ')}: something is missing`);
      t.match(r.stdout, /nomad binary/i, 'the Nomad item is told');
      t.match(r.stdout, /https:\/\[REDACTED\]@example\.com\/nomad/, 'the path it looked at, without them');
      t.notMatch(r.stdout + r.stderr, pw, `doctor ${json.join(' ')}: the password is nowhere`);
    }
  },
);

t.test(
  'setup and doctor are handed the console stream, so what they print is redacted like every command (Q78)',
  async (t) => {
    const token = 'c0ffee00-aaaa-4bbb-8ccc-Q78T0kenSecret';
    const s = standInPerRun({}, { cwd: t.testdir({}) });
    const deps = {
      ...s.deps,
      env: { ...s.deps.env, NOMAD_TOKEN: token },
      doctor: async (_c: unknown, _j: boolean, out: (text: string) => void) => (out(`NOMAD_TOKEN is ${token}\n`), 0),
      setup: async (o: { out: (text: string) => void }) => (o.out(`proxy https://u:${token}@proxy.example\n`), 0),
    } as Parameters<typeof main>[1];
    t.equal(await main(['doctor', '--netns', ''], deps), 0);
    t.equal(await main(['setup', '--netns', ''], deps), 0);
    const all = s.out.join('');
    t.match(all, /NOMAD_TOKEN is \[REDACTED\][^]*https:\/\/\[REDACTED\]@proxy\.example/);
    t.notMatch(all, token);
  },
);
