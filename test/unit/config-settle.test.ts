// The settle windows as config keys: reboot.settle_confirm (--settle-confirm), the confirmation once Nomad has nothing
// pending, and reboot.settle_quiet (--settle-quiet), the bound on a wait while Nomad still holds something; the
// confirmation is never the longer of the two.
import t from 'tap';
import { resolveConfig } from '../../lib/config/validate.js';
import { helpText } from '../../lib/cli/args.js';

const cfg = (flags: Record<string, unknown>, file?: unknown) =>
  resolveConfig({ file, env: {}, flags, knownChecks: [] });

t.test('defaults: 3 s of confirmation, 20 s of quiet', async (t) => {
  t.match(cfg({}), { ok: true, config: { reboot: { settleConfirmS: 3, settleQuietS: 20 } } });
});

t.test('--settle-confirm and reboot.settle_confirm: a duration or seconds, within 1 s to 600 s', async (t) => {
  t.match(cfg({ 'settle-confirm': '5s' }), { ok: true, config: { reboot: { settleConfirmS: 5 } } });
  t.match(cfg({}, { reboot: { settle_confirm: 2 } }), { ok: true, config: { reboot: { settleConfirmS: 2 } } });
  t.match(cfg({ 'settle-confirm': '0s' }), {
    ok: false,
    problems: [{ field: '--settle-confirm', value: '0s', message: /must be a duration from 1s to 600s/ }],
  });
});

t.test('the confirmation is at most the quiet period: a given value is a problem, the default yields', async (t) => {
  t.match(cfg({ 'settle-confirm': '30s' }), {
    ok: false,
    problems: [
      {
        field: '--settle-confirm',
        value: '30s',
        message: 'must not be longer than reboot.settle_quiet (20s)',
        fix: /raise reboot\.settle_quiet \(--settle-quiet\)/,
      },
    ],
  });
  t.match(
    cfg({ 'settle-confirm': '30s', 'settle-quiet': '60s' }),
    { ok: true, config: { reboot: { settleConfirmS: 30, settleQuietS: 60 } } },
    'a raised quiet period makes room',
  );
  t.match(cfg({}, { reboot: { settle_confirm: 9, settle_quiet: 5 } }), {
    ok: false,
    problems: [{ field: 'harness.yaml: reboot.settle_confirm', value: 9 }],
  });
  t.match(
    cfg({ 'settle-quiet': '2s' }),
    { ok: true, config: { reboot: { settleConfirmS: 2, settleQuietS: 2 } } },
    'a short quiet period alone still works',
  );
});

t.test('--help names both', async (t) => {
  const help = helpText('run');
  t.match(help, /--settle-confirm[^\n]*once every alloc's place is decided and Nomad has nothing pending/);
  t.match(help, /--settle-quiet[^\n]*Nomad still holds something for the job/);
});
