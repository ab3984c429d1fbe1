// .ci/run.ts's closing line: the counts from tap's last summary line, for readers and parsers of the CI log.
import t from 'tap';
import { summaryLine } from '../../.ci/run.js';

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
