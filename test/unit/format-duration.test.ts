import t from 'tap';
import { formatMs, TimeoutError } from '../../lib/errors.js';

t.test('formatMs: one readable duration, never a raw float', async (t) => {
  const cases: [number, string][] = [
    [0, '0ms'],
    [849.6, '850ms'],
    [999.4, '999ms'],
    [999.6, '1.0s'],
    [2748.928910000017, '2.7s'],
    [12_345, '12.3s'],
    [59_940, '59.9s'],
    [59_960, '1m00s'],
    [119_700, '2m00s'],
    [125_000, '2m05s'],
    [3_723_000, '1h02m03s'],
    [-5, '0ms'],
    [Number.NaN, '0ms'],
    [Number.POSITIVE_INFINITY, '0ms'],
  ];
  for (const [ms, want] of cases) t.equal(formatMs(ms), want, `${ms} ms`);
});

t.test('a wait that gives up says how long in the same format', async (t) => {
  t.equal(
    new TimeoutError('SSH to client', 2748.928910000017, 'refused').message,
    'waiting for SSH to client: gave up after 2.7s; last: refused',
  );
});
