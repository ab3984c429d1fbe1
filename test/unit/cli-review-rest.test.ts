// The rest of the 2026-12-06 CLI review's rows (docs/cli-defects.md) that pure functions decide: each message says
// what is so, once.
import t from 'tap';
import { keptMessage } from '../../lib/cli/session-command.js';

t.test('--keep says how to destroy the lab once, whoever says it (N24)', async (t) => {
  const lab =
    'lab r1 (libvirt) in /w/r1: its bring-up never finished, so there is nothing to log in to\n  destroy:  reboot-harness destroy r1   (by hand: …)';
  const m = keptMessage('r1', [lab]);
  t.equal(m.match(/reboot-harness destroy r1/g)?.length, 1, 'once, not "destroy:" and "destroy later with:"');
  t.match(keptMessage('r1', ['a tunnel to the lab']), /destroy later with: reboot-harness destroy r1\n$/);
});
