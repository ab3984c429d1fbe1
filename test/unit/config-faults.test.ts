// The shipped fault kinds (lib/faults): parsing --reboot and its durations, what a provider or scenario cannot do
// (refused before anything is created), the outcome rules, the matrix axis, and the pure command builders of
// lib/ssh/disrupt.ts.
import t from 'tap';
import { resolveConfig } from '../../lib/config/validate.js';
import { FAULTS, faultKind, faultKindProblems, faultOutcome, type LabOffer } from '../../lib/faults/registry.js';
import type { FaultDurations } from '../../lib/faults/define.js';
import type { RebootKind } from '../../lib/model/kinds.js';
import { parseMatrix } from '../../lib/matrix/spec.js';
import { parseAgentState, partitionCommands } from '../../lib/ssh/disrupt.js';

const REBOOT_KINDS = FAULTS.names;
const faultRestartsTasks = (k: RebootKind, d: FaultDurations = {}) => faultOutcome(k, d).restartsTasks;
const expectReplacement = (k: RebootKind, d: FaultDurations) => faultOutcome(k, d).replaced;

const cfg = (flags: Record<string, unknown>, file?: unknown) =>
  resolveConfig({ file, env: {}, flags, knownChecks: [] });

t.test('--reboot takes every kind; the durations take Go durations or seconds', async (t) => {
  for (const k of REBOOT_KINDS) t.match(cfg({ reboot: k }), { ok: true, config: { reboot: { kind: k } } }, k);
  t.match(cfg({}), { ok: true, config: { reboot: { kind: 'graceful', offForS: 10, partitionForS: 30 } } }, 'defaults');
  t.match(cfg({ reboot: 'power-off', 'off-for': '1m30s' }), { ok: true, config: { reboot: { offForS: 90 } } });
  t.match(cfg({}, { reboot: { kind: 'partition', partition_for: '20m' } }), {
    ok: true,
    config: { reboot: { kind: 'partition', partitionForS: 1200 } },
  });
  const bad = cfg({ reboot: 'meteor', 'partition-for': '0s' });
  t.equal(bad.ok, false);
  if (!bad.ok) {
    t.match(
      bad.problems,
      [
        {
          field: '--reboot',
          value: 'meteor',
          message:
            'must be one of graceful, hard, panic, power-off, power-loss-all, agent-kill, executor-kill, docker-restart, partition, leader-partition, link-flap, link-loss',
        },
        { field: '--partition-for', value: '0s', message: /must be a duration from 1s/ },
      ],
      'every problem at once',
    );
  }
});

const nomadScenario = { name: 'bridge-exec-reboot', hasNomadAgent: true };
const noAgent = { name: 'cni-ipam-reboot', hasNomadAgent: false };
const libvirt: LabOffer = { provider: 'libvirt', performs: REBOOT_KINDS, lacks: {} };
const noPower: LabOffer = {
  provider: 'ssh',
  performs: REBOOT_KINDS.filter((k) => k !== 'power-off' && k !== 'power-loss-all'),
  lacks: { 'power-reset': { reason: 'no lab.hard_reset_command', fix: 'set lab.hard_reset_command' } },
};
const can = (k: RebootKind, s: typeof nomadScenario, lab: LabOffer) => faultKindProblems(k, s, lab, FAULTS);

t.test('what a scenario or provider cannot do is a problem naming what it can', async (t) => {
  for (const k of REBOOT_KINDS) t.same(can(k, nomadScenario, libvirt), [], `${k} on libvirt with Nomad`);
  t.same(can('panic', noAgent, libvirt), []);
  t.same(can('power-off', noAgent, libvirt), []);
  t.match(can('agent-kill', noAgent, libvirt), [
    {
      field: '--reboot (reboot.kind)',
      value: 'agent-kill',
      message: 'cannot be done here: cni-ipam-reboot runs no Nomad agent to kill',
      fix: 'use one of: graceful, hard, panic, power-off, power-loss-all',
    },
  ]);
  t.match(can('partition', noAgent, libvirt), [{ message: /no Nomad agent to cut off/ }]);
  t.match(can('power-off', nomadScenario, noPower), [
    {
      message: 'cannot be done here: lab.provider ssh cannot do power-off: it has no performer for it',
      fix: 'use one of: graceful, panic, agent-kill, executor-kill, docker-restart, partition, leader-partition, link-flap, link-loss',
    },
  ]);
  t.match(can('hard', nomadScenario, noPower), [
    {
      message: 'cannot be done here: lab.provider ssh cannot do hard: no lab.hard_reset_command',
      fix: 'set lab.hard_reset_command, or use one of: graceful, panic, agent-kill, executor-kill, docker-restart, partition, leader-partition, link-flap, link-loss',
    },
  ]);
  t.same(can('graceful', noAgent, noPower), []);
});

t.test('which kinds reboot the host, restart tasks, expect a replacement', async (t) => {
  t.same(
    REBOOT_KINDS.filter((k) => faultKind(k).rebootsHost),
    ['graceful', 'hard', 'panic', 'power-off', 'power-loss-all'],
  );
  t.equal(faultRestartsTasks('agent-kill'), false);
  t.equal(faultRestartsTasks('partition', { partitionForS: 30, heartbeatGraceS: 300 }), false);
  t.equal(
    faultRestartsTasks('partition', { partitionForS: 60, heartbeatGraceS: 10 }),
    true,
    'replaced: the replacement starts',
  );
  t.equal(expectReplacement('partition', { partitionForS: 60, heartbeatGraceS: 10 }), true);
  t.equal(
    expectReplacement('partition', { partitionForS: 10, heartbeatGraceS: 10 }),
    false,
    'equal is within the grace',
  );
  t.equal(
    expectReplacement('power-off', { partitionForS: 60, heartbeatGraceS: 10 }),
    false,
    'only partition is judged by its duration',
  );
});

t.test('the matrix reboot axis takes every kind and names them for a wrong one', async (t) => {
  const ok = parseMatrix({ scenario: 'cni-ipam-reboot', axes: { reboot: ['panic', 'power-off'] } }, 'm.yaml', {
    'cni-ipam-reboot': [],
  });
  t.match(ok, { ok: true, spec: { axes: [{ name: 'reboot', values: ['panic', 'power-off'] }] } });
  const bad = parseMatrix({ scenario: 'cni-ipam-reboot', axes: { reboot: ['panic', 'kaboom'] } }, 'm.yaml', {
    'cni-ipam-reboot': [],
  });
  t.match(bad, {
    ok: false,
    problems: [
      {
        field: 'm.yaml: axes.reboot[1]',
        value: 'kaboom',
        fix: 'use one of: graceful, hard, panic, power-off, power-loss-all, agent-kill, executor-kill, docker-restart, partition, leader-partition, link-flap, link-loss',
      },
    ],
  });
});

t.test('agent state and partition commands', async (t) => {
  t.same(parseAgentState('MainPID=1234\nActiveState=active\nNRestarts=2\n'), {
    pid: 1234,
    active: 'active',
    restarts: 2,
  });
  t.same(parseAgentState('MainPID=0\nActiveState=activating\n'), { pid: 0, active: 'activating', restarts: 0 });
  t.same(partitionCommands('10.199.0.10', '-I'), [
    'iptables -w -I OUTPUT -d 10.199.0.10 -p tcp -m multiport --dports 4646,4647 -m comment --comment nrh-partition -j DROP',
    'iptables -w -I INPUT -s 10.199.0.10 -p tcp -m multiport --sports 4646,4647 -m comment --comment nrh-partition -j DROP',
  ]);
  t.match(partitionCommands('10.199.0.10', '-D')[0], /^iptables -w -D OUTPUT /);
  t.throws(() => partitionCommands('10.199.0.10; reboot', '-I'), /not an IPv4 address/);
});
