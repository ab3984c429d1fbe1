// `merge` through the real CLI: a four-cell matrix run as two shards by two "runners" (separate report folders, as
// CI artifacts are), stand-in labs and Nomad per run; then `merge` of both folders. The merged JUnit is checked
// against junit-10.xsd (xmllint), its counts against the inputs, the reruns kept; the index page in real Chromium.
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { chromium, chromiumMissing, pngSize } from '../helpers/chromium.js';

/** Where the index's known/new column links a public issue. */
const ISSUES = 'https://github.com/hashicorp/nomad/issues/';

t.setTimeout(240_000);

const MATRIX = `scenario: bridge-exec-reboot
axes:
  nomad:
    - {name: "1.9.3", binary: ./nomad-1.9.3}
    - {name: "1.9.7", binary: ./nomad-1.9.7}
  reboot: [graceful, hard]
`;

type Suite = Record<string, unknown> & { testcase?: unknown };
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
const suitesOf = (file: string): Suite[] =>
  [xml.parse(readFileSync(file, 'utf8')).testsuites.testsuite ?? []].flat() as Suite[];
const junitUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('junit.xml'))
    .map((f) => join(dir, f));

/** Run shard i/n (default of 2) as its own runner: own stand-ins, own report folder. 1.9.3 shows the duplicate-IP bug
 *  (a failed check, nothing expected); 1.9.7's first bring-up breaks once (an infrastructure error, retried: a
 *  flakyError). A runner merged alone runs 1/1: a merge that lacks a shard is refused (Q202). */
async function shard(t: Test, root: string, i: number, n = 2) {
  const runner = join(root, `runner-${i}`);
  const builds = {
    [join(root, 'nomad-1.9.3')]: { timeline: 'duplicate-ip' as const, version: '1.9.3' },
    [join(root, 'nomad-1.9.7')]: { timeline: 'restored' as const, version: '1.9.7', failUpLab: 1 },
  };
  const s = standInPerRun(builds, { cwd: root });
  const code = await main(
    ['matrix', 'm.yaml', '--shard', `${i}/${n}`, '--reports-dir', join(runner, 'reports'), '--netns', ''],
    s.deps,
  );
  t.equal(code, 1, `shard ${i}/${n} exits 1 (the 1.9.3 cell failed)`);
  return runner;
}

t.test(
  'two shards merged: one valid JUnit whose counts add up, reruns kept, an index linking every cell',
  async (t) => {
    t.saveFixture = true; // keep the runners' reports, the merge and the screenshot as test artifacts
    const root = t.testdir({ 'm.yaml': MATRIX });
    const runners = [await shard(t, root, 1), await shard(t, root, 2)];
    const inputs = runners.flatMap((r) => junitUnder(r));
    t.equal(inputs.length, 2, 'one JUnit file per runner');
    const inSuites = inputs.flatMap(suitesOf);
    t.equal(inSuites.length, 4, 'four cells over the two shards');

    const out: string[] = [];
    const err: string[] = [];
    const deps = {
      ...standInPerRun({}, { cwd: root }).deps,
      out: (s: string) => void out.push(s),
      err: (s: string) => void err.push(s),
    };
    // As CI hands them over: each runner's reports folder downloaded somewhere else (download-artifact's layout).
    mkdirSync(join(root, 'all-reports'));
    for (const [k, r] of runners.entries())
      renameSync(join(r, 'reports'), join(root, 'all-reports', `reports-shard-${k + 1}`));
    const code = await main(['merge', 'all-reports', '--out', 'merged'], deps);
    t.equal(code, 1, `merge exits as run would over the cells: 1 (a check failed) ${err.join('')}`);
    const junit = join(root, 'merged', 'junit.xml');
    validateJUnit(t, junit, 'merged JUnit');

    const doc = xml.parse(readFileSync(junit, 'utf8')).testsuites as Record<string, string>;
    const merged = suitesOf(junit);
    t.same(
      merged.map((s) => s['name']),
      [
        'bridge-exec-reboot@1.9.3/reboot=graceful',
        'bridge-exec-reboot@1.9.3/reboot=hard',
        'bridge-exec-reboot@1.9.7/reboot=graceful',
        'bridge-exec-reboot@1.9.7/reboot=hard',
      ],
      'one suite per cell, unique, in name order',
    );
    for (const k of ['tests', 'failures', 'errors'] as const) {
      const sumIn = inSuites.reduce((n, s) => n + Number(s[k]), 0);
      t.equal(Number(doc[k]), sumIn, `root ${k} = the inputs' ${k} (${sumIn})`);
      t.equal(
        Number(doc[k]),
        merged.reduce((n, s) => n + Number(s[k]), 0),
        `root ${k} = the sum of the merged suites`,
      );
    }
    t.ok(Number(doc['failures']) > 0, 'the 1.9.3 failures are there');
    const text = readFileSync(junit, 'utf8');
    t.equal((text.match(/<flakyError /g) ?? []).length, 2, 'both 1.9.7 cells keep their Surefire flakyError');
    t.match(text, /<flakyError message="attempt 1 \(run \w+\) ended in an infrastructure error/);
    t.match(out.join(''), /merged 4 suites from 2 JSON reports/);
    const attachments = [...text.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);
    t.ok(attachments.length >= 4, `${attachments.length} attachment lines`);
    t.same(
      attachments.filter((a) => !existsSync(resolve(root, 'merged', a))),
      [],
      "every attachment resolves from the merged JUnit's folder",
    );
    t.ok(
      attachments.every((a) => a.startsWith('../all-reports/reports-shard-')),
      'pointing into the downloaded reports',
    );
    t.notMatch(out.join(''), /attachment lines name files not among the inputs/);

    const index = join(root, 'merged', 'index.html');
    const html = readFileSync(index, 'utf8');
    // the known/new column links each reproduced public issue; every other link is a cell's page
    const all = [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]!);
    const hrefs = all.filter((h) => !h.startsWith(ISSUES));
    t.ok(all.length > hrefs.length, 'the labelled cells link their issues');
    t.equal(hrefs.length, 4, 'a link per cell');
    for (const h of hrefs) {
      t.notOk(h.startsWith('/'), `${h} is relative`);
      t.ok(existsSync(resolve(dirname(index), decodeURIComponent(h))), `${h} resolves from the index to a page`);
    }

    t.test('the index page as Chromium renders it', { skip: chromiumMissing }, async (t) => {
      const dom = chromium(root, index, ['--dump-dom']);
      t.match(dom, /<span class="badge failed" id="verdict">FAIL<\/span>/, 'the overall verdict');
      const rows = [...dom.matchAll(/<tr class="(\w+)" data-cell="([^"]+)">/g)].map((m) => `${m[2]}:${m[1]}`);
      t.same(
        rows,
        [
          'bridge-exec-reboot@1.9.3/reboot=graceful:failed',
          'bridge-exec-reboot@1.9.3/reboot=hard:failed',
          'bridge-exec-reboot@1.9.7/reboot=graceful:passed',
          'bridge-exec-reboot@1.9.7/reboot=hard:passed',
        ],
        'a row per cell, failures first',
      );
      const nomad = [...dom.matchAll(/<td data-axis="nomad">([^<]*)<\/td>/g)].map((m) => m[1]);
      const reboot = [...dom.matchAll(/<td data-axis="reboot">([^<]*)<\/td>/g)].map((m) => m[1]);
      t.same(nomad, ['1.9.3', '1.9.3', '1.9.7', '1.9.7'], 'the nomad axis column');
      t.same(reboot, ['graceful', 'hard', 'graceful', 'hard'], 'the reboot axis column');
      t.match(dom, /<td class="n">2 \(retried\)<\/td>/, 'the retried cells show two attempts');
      // Follow one link in the browser: the cell's own page loads from the index's relative href.
      const first = resolve(dirname(index), decodeURIComponent([...dom.matchAll(/<a href="([^"]+)">/g)][0]![1]!));
      t.match(
        chromium(root, first, ['--dump-dom']),
        /<title>FAIL bridge-exec-reboot@1\.9\.3\/reboot=graceful/,
        "the linked page is the cell's",
      );
      const shot = join(root, 'index.png');
      chromium(root, index, [`--screenshot=${shot}`, '--window-size=1200,700']);
      t.ok(pngSize(shot).bytes > 10_000, 'a screenshot with content');
    });
  },
);

t.test("a cell in two runners' reports is refused, naming both; the same run given twice is kept once", async (t) => {
  const root = t.testdir({ 'm.yaml': MATRIX });
  const runner = await shard(t, root, 1, 1);
  const file = junitUnder(runner)[0]!;
  mkdirSync(join(root, 'copy'));
  writeFileSync(join(root, 'copy', 'junit.xml'), readFileSync(file, 'utf8'));
  const other = readFileSync(file, 'utf8').replace(/ id="(\w+)"/, ' id="rsomeotherrun"');
  mkdirSync(join(root, 'rerun'));
  writeFileSync(join(root, 'rerun', 'junit.xml'), other);
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const deps = {
      ...standInPerRun({}, { cwd: root }).deps,
      out: (s: string) => void out.push(s),
      err: (s: string) => void err.push(s),
    };
    return { code: await main(['merge', ...argv], deps), out: out.join(''), err: err.join('') };
  };
  const same = await run([runner, join(root, 'copy', 'junit.xml'), '--out', 'm1']);
  t.equal(same.code, 1);
  t.match(same.err, /the same run, kept once/);
  t.equal(suitesOf(join(root, 'm1', 'junit.xml')).length, 4);
  // A JUnit file given alone: the pages are found next to it or one folder up (<reports-dir>/<run id>/report.html).
  const alone = await run([file, '--out', 'm0']);
  t.equal(alone.code, 1, alone.err);
  const index = join(root, 'm0', 'index.html');
  const links = [...readFileSync(index, 'utf8').matchAll(/<a href="([^"]+)">/g)]
    .map((m) => m[1]!)
    .filter((h) => !h.startsWith(ISSUES));
  t.equal(links.length, 4, 'every cell of the runner links its page');
  t.ok(
    links.every((h) => existsSync(resolve(dirname(index), decodeURIComponent(h)))),
    `${links.join(' ')} resolve`,
  );
  const dup = await run([runner, 'rerun', '--out', 'm2']);
  t.equal(dup.code, 2, 'exit 2: nothing written');
  t.match(dup.err, /testsuite "bridge-exec-reboot@1\.9\.3\/reboot=graceful"/);
  // a JUnit file whose run has no summary among the inputs: what a retried job leaves, not a second runner (Q351)
  t.match(dup.err, /a JUnit file another run of the cell \(a retried job, or a re-run\) left beside the reports/);
  t.notOk(existsSync(join(root, 'm2')), 'no output folder');
  const bad = await run(['nowhere', 'm.yaml', '--out', 'm3']);
  t.equal(bad.code, 2);
  t.match(bad.err, /merge input: cannot be read \(ENOENT\) \(got "nowhere"/);
  t.match(bad.err, /merge input: is not a JUnit file .*m\.yaml/);
  t.match(bad.err, /2 problems/, 'both problems at once');
  // --out the input folder itself: the merged files would be read back as one more run by the next merge (Q29)
  const into = await run([runner, '--out', runner]);
  t.equal(into.code, 2, into.err);
  t.match(into.err, /--out: is the input folder .*the merged reports would land among the ones they merge/);
  t.match(into.err, /fix: give --out a folder of its own, e\.g\. --out .*merged/);
  t.notOk(existsSync(join(runner, 'index.html')), 'nothing written into the input');
});

t.test("the GitLab template's layout: every attachment resolves from the project directory", async (t) => {
  // GitLab resolves [[ATTACHMENT|path]] from $CI_PROJECT_DIR, not from the JUnit file's folder; the template writes
  // reports/shard-<i>/junit.xml and merges into reports/merged.
  const root = t.testdir({ 'm.yaml': MATRIX });
  const env = { CI_PROJECT_DIR: root };
  const builds = {
    [join(root, 'nomad-1.9.3')]: { timeline: 'duplicate-ip' as const, version: '1.9.3' },
    [join(root, 'nomad-1.9.7')]: { timeline: 'restored' as const, version: '1.9.7' },
  };
  const failedCases = (file: string) =>
    suitesOf(file)
      .flatMap((s) => [s.testcase ?? []].flat() as Record<string, unknown>[])
      .filter((c) => c['failure'] !== undefined || c['error'] !== undefined);
  for (const i of [1, 2]) {
    const s = standInPerRun(builds, { cwd: root });
    const code = await main(
      ['matrix', 'm.yaml', '--shard', `${i}/2`, '--reports-dir', join(root, `reports/shard-${i}`), '--junit'],
      { ...s.deps, env: { ...s.deps.env, ...env } },
    ).catch(() => -1);
    t.equal(code, 2, 'a missing --junit value is refused first (the template always gives one)');
    const s2 = standInPerRun(builds, { cwd: root });
    const ran = await main(
      [
        'matrix',
        'm.yaml',
        '--shard',
        `${i}/2`,
        // absolute: the stand-in's cwd is not the process's (CI runs from the project directory)
        '--reports-dir',
        join(root, `reports/shard-${i}`),
        '--junit',
        join(root, `reports/shard-${i}/junit.xml`),
        '--netns',
        '',
      ],
      { ...s2.deps, env: { ...s2.deps.env, ...env } },
    );
    t.equal(ran, 1, `shard ${i}/2 ran (the 1.9.3 cell failed) ${s2.err.join('')}`);
    const file = join(root, `reports/shard-${i}/junit.xml`);
    const text = readFileSync(file, 'utf8');
    const paths = [...text.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);
    t.ok(paths.length > 0, `shard ${i}: ${paths.length} attachment lines`);
    t.same(
      paths.filter((p) => !existsSync(resolve(root, p))),
      [],
      `shard ${i}: every attachment resolves from the project directory`,
    );
    t.ok(
      paths.every((p) => p.startsWith(`reports/shard-${i}/`)),
      'written from the project directory, not the JUnit folder',
    );
    t.ok(failedCases(file).length > 0, 'the shard has failed cases');
  }
  const out: string[] = [];
  const deps = { ...standInPerRun({}, { cwd: root }).deps, out: (s: string) => void out.push(s) };
  t.equal(await main(['merge', 'reports', '--out', 'reports/merged'], { ...deps, env: { ...deps.env, ...env } }), 1);
  const merged = readFileSync(join(root, 'reports/merged/junit.xml'), 'utf8');
  const paths = [...merged.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);
  t.ok(paths.length > 0);
  t.same(
    paths.filter((p) => !existsSync(resolve(root, p))),
    [],
    'merged: every attachment resolves from the project directory',
  );
  t.notMatch(out.join(''), /not among the inputs/);
  // Outside GitLab the merged file's attachments resolve from its own folder.
  const plain = { ...standInPerRun({}, { cwd: root }).deps, out: () => {} };
  t.equal(await main(['merge', 'reports/shard-1', 'reports/shard-2', '--out', 'elsewhere/m'], plain), 1);
  const other = readFileSync(join(root, 'elsewhere/m/junit.xml'), 'utf8');
  const rel = [...other.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);
  t.same(
    rel.filter((p) => !existsSync(resolve(root, 'elsewhere/m', p))),
    [],
    'without CI_PROJECT_DIR: from the merged file',
  );
});

t.test(
  'a cut summary.json under a folder is told, not dropped; a summary named by --report-json is merged',
  async (t) => {
    const root = t.testdir({ 'm.yaml': MATRIX });
    const runner = await shard(t, root, 1, 1);
    const summaries = readdirSync(runner, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('summary.json'))
      .map((f) => join(runner, f));
    t.ok(summaries.length > 0, `the runner wrote summaries: ${summaries.join(' ')}`);
    const run = async (argv: string[]) => {
      const err: string[] = [];
      const deps = { ...standInPerRun({}, { cwd: root }).deps, out: () => {}, err: (s: string) => void err.push(s) };
      return { code: await main(['merge', ...argv], deps), err: err.join('') };
    };
    // a summary written under another name (run --report-json j1/a.json --junit j1/a.xml), given as it is
    mkdirSync(join(root, 'j1'));
    writeFileSync(join(root, 'j1', 'a.json'), readFileSync(summaries[0]!, 'utf8'));
    writeFileSync(join(root, 'j1', 'a.xml'), readFileSync(junitUnder(runner)[0]!, 'utf8'));
    const named = await run([join(root, 'j1', 'a.json'), join(root, 'j1', 'a.xml'), '--out', 'n1']);
    t.equal(named.code, 1, `the run's verdict (a failed check): ${named.err}`);
    t.ok(existsSync(join(root, 'n1', 'junit.xml')), 'merged');
    // a runner killed in the write: its summary cut, its JUnit elsewhere or gone
    for (const f of junitUnder(runner)) renameSync(f, `${f}.gone`);
    const cut = summaries[0]!;
    writeFileSync(cut, readFileSync(cut, 'utf8').slice(0, 200));
    const r = await run([runner, '--out', 'n2']);
    t.equal(r.code, 2, 'exit 2: a cell would be lost');
    t.match(r.err, /merge input: is not JSON .*summary\.json/);
    t.match(r.err, /run that cell again/);
    t.notOk(existsSync(join(root, 'n2')), 'nothing written');
    // a summary a newer harness wrote whole: merged by that version, not run again (Q165)
    writeFileSync(cut, JSON.stringify({ schema: 'nomad-reboot-harness/summary@2', runs: [] }));
    const newer = await run([runner, '--out', 'n4']);
    t.equal(newer.code, 2);
    t.match(newer.err, /written by another version of the harness \(summary@2\): merge it with that version/);
    t.notMatch(newer.err, /run that cell again/);
    // another tool's summary.json under the folder is left alone
    writeFileSync(cut, JSON.stringify({ schema: 'other-tool/summary@3', passed: 4 }));
    const foreign = await run([runner, '--out', 'n3']);
    t.notMatch(foreign.err, /other-tool/, "another tool's file is not a problem");
  },
);
