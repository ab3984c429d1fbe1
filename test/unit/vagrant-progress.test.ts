// Bring-up progress from Vagrant's output: each machine's milestones, once each and in order, from the machine-readable
// stream `vagrant up` prints (fixture: two machines brought up together) and from its plain `==> machine:` lines; and
// the adapter handing them on as the lines stream.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { upProgress, upProgressTracker } from '../../lib/parse/vagrant-progress.js';
import { transcriptLine } from '../../lib/parse/vagrant-machine-readable.js';
import { createVagrant } from '../../lib/vagrant/vagrant.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { RunCommand } from '../../lib/exec/run.js';

const FIXTURE = readFileSync(join(import.meta.dirname, '../fixtures/vagrant/up-two-machines.mr.txt'), 'utf8');
const LINES = FIXTURE.trimEnd().split('\n');
const S = 'r5fqul7d59825b-server';
const C = 'r5fqul7d59825b-client';

t.test('the machine-readable stream: every milestone of each machine, once, in order', async (t) => {
  const track = upProgressTracker();
  const seen = LINES.flatMap((l) => {
    const p = track(l);
    return p ? [`${p.machine === S ? 'server' : 'client'} ${p.milestone}`] : [];
  });
  t.same(seen, [
    'server creating',
    'client creating',
    'server booting',
    'client booting',
    'server address',
    'client address',
    'server ssh-ready',
    'client ssh-ready',
    'server up',
    'client up',
  ]);
  t.equal(
    LINES.filter((l) => upProgress(l)?.milestone === 'creating').length,
    4,
    'the raw stream marks creating twice per machine (image, then domain): the tracker says it once',
  );
});

t.test('the plain `==> machine:` lines (what the transcript keeps) give the same milestones but "up"', async (t) => {
  const track = upProgressTracker();
  const plain = LINES.flatMap((l) => transcriptLine(l) ?? []);
  t.ok(
    plain.some((l) => l === `==> ${C}: Starting domain.`),
    'plain lines as a person reads them',
  );
  const seen = plain.flatMap((l) => track(l) ?? []);
  t.same(
    seen.map((p) => `${p.machine} ${p.milestone}`),
    [
      `${S} creating`,
      `${C} creating`,
      `${S} booting`,
      `${C} booting`,
      `${S} address`,
      `${C} address`,
      `${S} ssh-ready`,
      `${C} ssh-ready`,
    ],
  );
});

t.test('lines that mark nothing', async (t) => {
  for (const l of [
    `1796338303,${S},ui,info,==> ${S}:  -- Name:              ${S}`,
    `1796338345,${S},ui,detail,    ${S}: SSH address: 10.198.0.218:22`,
    `1796338300,${S},action,up,start`,
    `1796338300,${S},metadata,provider,libvirt`,
    `1796338300,,ui,info,Bringing machine '${S}' up with 'libvirt' provider...`,
    'Starting domain.',
    '',
  ])
    t.equal(upProgress(l), undefined, JSON.stringify(l));
});

t.test('vagrant up hands each milestone on as its line arrives', async (t) => {
  const at: { line: number; milestone: string; machine: string }[] = [];
  let n = 0;
  const run: RunCommand = async (_file, args, opts) => {
    t.same(args.slice(0, 1), ['up']);
    for (const l of LINES) {
      n++;
      opts.onLine?.('stdout', l);
    }
    return { code: 0, stdout: FIXTURE, stderr: '', durationMs: 1 } as Awaited<ReturnType<RunCommand>>;
  };
  const dir = t.testdir({});
  const v = createVagrant({ cwd: dir, run, lockDir: dir });
  await v.up([S, C], {
    provider: 'libvirt',
    deadline: deadlineIn(10_000),
    onProgress: (p) => void at.push({ line: n, ...p }),
  });
  t.equal(at.length, 10, 'ten milestones');
  t.same(
    at.map((a) => a.line),
    [...at.map((a) => a.line)].sort((a, b) => a - b),
    'in stream order',
  );
  t.ok(at[0]!.line < LINES.length / 2, 'the first came long before the command ended (as it streamed)');
  t.match(at.at(-1), { machine: C, milestone: 'up', line: LINES.length });
});
