// .ci/run.ts's closing line: the counts from tap's last summary line, for readers and parsers of the CI log.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { failureDigest, summaryLine } from '../../.ci/run.js';

t.test('the last tap summary gives the counts; absent keys are 0', async (t) => {
  const log = [
    '# { total: 3, pass: 3 }',
    'ok 1 - test/unit/x.test.ts',
    '# { total: 1034, pass: 1001, fail: 2, skip: 31 }',
    '# time=95123ms',
  ].join('\n');
  t.equal(summaryLine(log), '1001 passed, 2 failed, 31 skipped');
  t.equal(summaryLine('# { total: 5, pass: 5 }\n'), '5 passed, 0 failed, 0 skipped');
  t.equal(summaryLine('tsc failed before tap ran\n'), '0 passed, 0 failed, 0 skipped', 'no tap summary: zeros');
});

t.test(
  'what failed: each failed assertion with its subtests, its place and diagnostic; a file that crashed',
  async (t) => {
    // Real tap 21 output (`tap -R tap`) of a file with a failing assertion in a nested subtest and a subtest that threw,
    // then a file that failed before any test ran.
    const log = await readFile(new URL('../fixtures/ci/tap-failures.tap', import.meta.url), 'utf8');
    const digest = failureDigest(log);
    t.same(
      digest.filter((l) => l.startsWith('not ok')),
      [
        'not ok: test/tmpx/a.test.ts > outer group > inner > one is two (test/tmpx/a.test.ts:5)',
        'not ok: test/tmpx/a.test.ts > crashes > boom (test/tmpx/a.test.ts:9)',
        'not ok: test/vm/never-ran.test.ts',
      ],
      'leaf failures only: no line for the subtests and the file that failed because of them',
    );
    const afterFirst = digest.slice(1, digest.indexOf(digest.find((l) => l.includes('crashes'))!));
    t.match(afterFirst.join('\n'), /compare: ===[\s\S]*-2[\s\S]*\+1/, 'the diff is kept');
    t.notMatch(afterFirst.join('\n'), /source:|stack:|fileName/, 'stack and source are dropped');
    t.match(digest.slice(-2).join('\n'), /exitCode: 1\n {4}signal: null/, 'how the file ended');
    t.same(failureDigest('# { total: 3, pass: 3 }\nok 1 - a\n'), [], 'nothing failed: no lines');
    t.ok(
      failureDigest(log, 2).some((l) => /more lines in reports\/ci-test\.log/.test(l)),
      'long diagnostics are cut',
    );
  },
);
