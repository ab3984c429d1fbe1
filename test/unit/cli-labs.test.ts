// --keep on-failure as argv and config take it; login's pure parts (which machine, which command); list-labs' table.
import t from 'tap';
import { parseCliCollecting } from '../../lib/cli/args.js';
import { resolveConfig } from '../../lib/config/validate.js';
import { hostLoginCommand, pickMachine, vagrantLoginCommand } from '../../lib/cli/login.js';
import { ageText, renderLabs, type LabEntry } from '../../lib/cli/labs.js';
import { decideWarm } from '../../lib/lab/warm/warm-key.js';

t.test('--keep on-failure: a switch that also takes one word', async (t) => {
  const spaced = parseCliCollecting(['run', 'bridge-exec-reboot', '--keep', 'on-failure', '--nomad', './n']);
  t.same(spaced.problems, []);
  t.equal(spaced.args.values['keep'], 'on-failure');
  t.same(spaced.args.positionals, ['bridge-exec-reboot'], 'the word is not taken for a scenario');
  t.same(spaced.args.rawArgs, ['bridge-exec-reboot', '--keep=on-failure', '--nomad', './n'], 'one token for repro');
  t.equal(parseCliCollecting(['run', 'x', '--keep=on-failure']).args.values['keep'], 'on-failure');
  t.equal(parseCliCollecting(['run', 'x', '--keep']).args.values['keep'], true, 'alone: always');
  const after = parseCliCollecting(['run', '--keep', 'bridge-exec-reboot']);
  t.equal(after.args.values['keep'], true);
  t.same(after.args.positionals, ['bridge-exec-reboot'], 'any other word stays a positional');
  const bad = parseCliCollecting(['run', 'x', '--keep=sometimes']);
  t.match(bad.problems, [{ field: '--keep', value: 'sometimes', fix: /--keep=true\|false\|yes\|no\|on-failure/ }]);

  const config = (flags: Record<string, unknown>, env: Record<string, string> = {}) =>
    resolveConfig({ file: undefined, env, flags, knownChecks: [] });
  const on = config({ keep: 'on-failure' });
  t.ok(on.ok && on.config.keep === 'on-failure', 'the flag');
  const fromEnv = config({}, { HARNESS_KEEP: 'on-failure' });
  t.ok(fromEnv.ok && fromEnv.config.keep === 'on-failure', 'HARNESS_KEEP too');
  const wrong = config({}, { HARNESS_KEEP: 'maybe' });
  t.match(wrong, { ok: false, problems: [{ message: 'must be true, false or on-failure' }] });
  const warm = decideWarm({
    warm: true,
    provider: 'libvirt',
    snapshots: true,
    keep: 'on-failure',
    state: { kind: 'none' },
    nowMs: 0,
  });
  t.match(warm, { mode: 'cold', reason: /--keep on-failure may keep/ }, 'a lab that may be kept is never the warm one');
});

const machines = [
  { name: 'r1-server', role: 'server', slot: 'server' },
  { name: 'r1-client-1', role: 'client', slot: 'client-1' },
  { name: 'r1-client-2', role: 'client', slot: 'client-2' },
];

t.test('login: the machine and the command', async (t) => {
  t.match(pickMachine(machines, undefined), { ok: { slot: 'client-1' } }, 'default: the first client');
  t.match(pickMachine(machines, 'server'), { ok: { name: 'r1-server' } }, 'by slot');
  t.match(pickMachine(machines, 'r1-client-2'), { ok: { slot: 'client-2' } }, "by the VM's name");
  t.match(pickMachine(machines, 'client-3'), {
    problem: { field: 'machine', value: 'client-3', fix: 'give one of: server, client-1, client-2' },
  });
  t.same(vagrantLoginCommand({ dir: '/w/r1', machine: machines[1]!, command: undefined, netns: 'nrh-lab' }), {
    file: 'ip',
    args: ['netns', 'exec', 'nrh-lab', 'ssh', '-F', '/w/r1/ssh-config', '-t', 'r1-client-1'],
  });
  t.same(vagrantLoginCommand({ dir: '/w/r1', machine: machines[0]!, command: 'uname -r', netns: undefined }), {
    file: 'ssh',
    args: ['-F', '/w/r1/ssh-config', 'r1-server', '--', 'uname -r'],
  });
  const host = { address: '203.0.113.11', user: 'admin', key: '/k/id', port: 2222, jump: 'ops@bastion:22' };
  const h = hostLoginCommand({ spec: host, command: 'id', netns: undefined });
  t.equal(h.file, 'ssh');
  t.same(h.args.slice(-7), ['-p', '2222', '-J', 'ops@bastion:22', 'admin@203.0.113.11', '--', 'id']);
  t.ok(h.args.includes('-i') && h.args.includes('/k/id'), 'the key');
});

t.test('list-labs: ages and the table', async (t) => {
  t.same([5, 119, 600, 7200, 3 * 86400].map(ageText), ['5s', '119s', '10m', '2h', '3d']);
  const labs: LabEntry[] = [
    { id: 'r1', kind: 'kept', dir: '/w/r1', ageS: 90, machines: ['server', 'client'], topology: '1+1' },
    { id: 'r2', kind: 'orphan', dir: '/tmp/gone/r2', machines: ['r2-server'] },
  ];
  const text = renderLabs(labs, '/w');
  t.match(
    text,
    /^ID +KIND +AGE +TOPOLOGY +MACHINES +DIR\nr1 +kept +90s +1\+1 +server,client +\/w\/r1\nr2 +orphan +\? +\? +r2-server +\/tmp\/gone\/r2 \(gone\)/,
  );
  t.match(text, /reboot-harness login <id>/);
  t.equal(renderLabs([], '/w'), 'no labs under /w and no orphan domains');
  t.equal(
    renderLabs([], '/nonexistent', true, 'missing'),
    'no labs under /nonexistent (it does not exist: no run made a lab there; --work-dir or lab.work_dir names the work dir) and no orphan domains',
    'a work dir that is not there is said (Q69)',
  );
  t.match(renderLabs([], '/dev/null', false, 'not a directory'), /^no labs under \/dev\/null \(it is not a directory;/);
});
