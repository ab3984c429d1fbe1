// The CLI's fourth adversarial pass (docs/cli-defects.md, rows Q*), each through the real main() with the stand-ins
// and --plan: flags no cell reads (upgrade-in-place without a reboot, bridge-exec-reboot's own options), and matrix
// cells judged as the labs their axes make (a target, a fault kind a cell's lab cannot do).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import '../helpers/ts-loader.js';
import { planOnlyCli as cli } from '../helpers/cli-plan-only.js';

const NOMAD = '/stand-in/nomad-1.9.7';

t.test(
  'upgrade-in-place without upgrade-then-reboot: --reboot and its options are refused as ignored (Q4)',
  async (t) => {
    const c = cli(t);
    const base = ['run', 'upgrade-in-place', '--nomad', NOMAD, '--upgrade-to', NOMAD, '--plan'];
    const r = await c.run([...base, '--reboot', 'power-off', '--off-for', '30s']);
    t.equal(r.code, 2, r.err);
    t.match(
      r.err,
      /--reboot: is not read: upgrade-in-place reboots the client only with --upgrade-mode upgrade-then-reboot \(this run: upgrade\)/,
    );
    t.match(r.err, /--off-for: is not read: .*fix: drop --off-for, or give --upgrade-mode upgrade-then-reboot/);
    const restart = await c.run([...base, '--upgrade-mode', 'restart-only', '--reboot', 'panic']);
    t.equal(restart.code, 2);
    t.match(restart.err, /--reboot: is not read: .*\(this run: restart-only\)/);
    const read = await c.run([
      ...base,
      '--upgrade-mode',
      'upgrade-then-reboot',
      '--reboot',
      'power-off',
      '--off-for',
      '30s',
    ]);
    t.equal(read.code, 0, `upgrade-then-reboot reads them: ${read.err}`);
    t.equal((await c.run([...base])).code, 0, 'nothing given, nothing refused');
    const all = await c.run(['run', '--all', '--nomad', NOMAD, '--upgrade-to', NOMAD, '--reboot', 'panic', '--plan']);
    t.equal(all.code, 0, `--all: the other scenarios read --reboot: ${all.err}`);
  },
);

t.test('--restart-task and --resources-window outside bridge-exec-reboot are refused as ignored (Q5)', async (t) => {
  const c = cli(t);
  const r = await c.run([
    'run',
    'rolling-reboot',
    '--nomad',
    NOMAD,
    '--restart-task',
    'false',
    '--resources-window',
    '5s',
    '--plan',
  ]);
  t.equal(r.code, 2);
  t.match(
    r.err,
    /--restart-task: is not used by rolling-reboot \(only by bridge-exec-reboot\), so it would be ignored/,
  );
  t.match(r.err, /--resources-window: is not used by rolling-reboot \(only by bridge-exec-reboot\)/);
  const ok = await c.run(['run', '--nomad', NOMAD, '--restart-task', 'false', '--resources-window', '5s', '--plan']);
  t.equal(ok.code, 0, ok.err);
});

t.test(
  "a matrix whose axes set the counts: the target and the fault kind judged against each cell's lab (Q6, Q7)",
  async (t) => {
    const c = cli(t);
    // client-2 exists in every cell (2 and 3 clients): not judged against the defaults' 1+1 pair
    const fits = join(c.dir, 'fits.yaml');
    const fitsText = `scenario: rolling-reboot\naxes:\n  nomad:\n    - {name: a, binary: ${NOMAD}}\n  clients: [2, 3]\ndefaults:\n  reboot: {target: client-2}\n`;
    writeFileSync(fits, fitsText);
    const ok = await c.run(['matrix', fits, '--plan']);
    t.equal(ok.code, 0, ok.err);
    // server-3 and leader-partition in a defaults whose cells have 3 and 5 servers
    const servers = join(c.dir, 'servers.yaml');
    writeFileSync(
      servers,
      `scenario: server-reboot\naxes:\n  nomad:\n    - {name: a, binary: ${NOMAD}}\n  servers: [3, 5]\ndefaults:\n  reboot: {target: server-3, kind: leader-partition}\n`,
    );
    const ok2 = await c.run(['matrix', servers, '--plan']);
    t.equal(ok2.code, 0, ok2.err);
    // client-3 in a matrix with a 1-client cell: that cell, named
    const some = join(c.dir, 'some.yaml');
    writeFileSync(
      some,
      `scenario: rolling-reboot\naxes:\n  nomad:\n    - {name: a, binary: ${NOMAD}}\n  clients: [1, 3]\ndefaults:\n  reboot: {target: client-3}\n`,
    );
    const bad = await c.run(['matrix', some, '--plan']);
    t.equal(bad.code, 2);
    t.match(
      bad.err,
      /cell rolling-reboot\/nomad=a\/clients=1: --target \(reboot\.target\): names a machine this lab lacks/,
    );
    t.notMatch(bad.err, /clients=3/, 'the 3-client cell has client-3');
    // leader-partition on the 1-server cell of a servers axis: refused as run refuses it, naming the axis
    const kinds = join(c.dir, 'kinds.yaml');
    writeFileSync(
      kinds,
      `scenario: server-reboot\naxes:\n  nomad:\n    - {name: a, binary: ${NOMAD}}\n  reboot: [leader-partition]\n  servers: [1, 3]\n`,
    );
    const q = await c.run(['matrix', kinds, '--plan']);
    t.equal(q.code, 2, 'the 1-server cell cannot partition its leader');
    t.match(
      q.err,
      /cell server-reboot\/nomad=a\/reboot=leader-partition\/servers=1: .*axes\.reboot: cannot be done here: leader-partition needs the other servers to keep a quorum/,
    );
    t.notMatch(q.err, /servers=3/);
  },
);

t.test(
  'run --help says what --job takes on each scenario, not only "a service job with a bridge-mode group" (Q10)',
  async (t) => {
    const c = cli(t);
    const r = await c.run(['run', '--help']);
    const line = r.out.split('\n').find((l) => l.trimStart().startsWith('--job'));
    t.ok(line, r.out);
    t.notMatch(r.out, /--job[\s\S]*?a service job with a bridge-mode group, any count/);
    t.match(
      r.out,
      /--job <value>\s+your own job .*system, sysbatch and batch jobs on rolling-reboot and server-reboot/,
    );
  },
);

t.test('--reboot with a fault schedule is refused as ignored: each step names its own fault (Q11)', async (t) => {
  const c = cli(t);
  const schedule = join(c.dir, 'faults.yaml');
  writeFileSync(schedule, 'faults:\n  - {fault: graceful, target: client-1}\n');
  const base = ['run', 'rolling-reboot', '--nomad', NOMAD, '--clients', '2', '--faults', schedule, '--plan'];
  const r = await c.run([...base, '--reboot', 'hard']);
  t.equal(r.code, 2, r.err);
  t.match(r.err, /--reboot: is not read with a fault schedule \(--faults\): each of its steps names its own fault/);
  const ok = await c.run(base);
  t.equal(ok.code, 0, ok.err);
});
