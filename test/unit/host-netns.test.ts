import t from 'tap';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseNetnsList, alivePid, IN_NETNS_ENV } from '../../lib/lab/host/host.js';
import { setupArgs, runSetup, nextCommands, SETUP_SCRIPT } from '../../lib/cli/setup.js';
import { TSX_LOADER } from '../../lib/exec/tsx.js';
import { CommandError } from '../../lib/errors.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { RunCommand } from '../../lib/exec/run.js';
import type { LogEvent } from '../../lib/log/events.js';

t.test('parseNetnsList reads `ip netns list` with and without ids', async (t) => {
  t.same(parseNetnsList('nrh-dev (id: 1)\nnrh-rec\n\n'), ['nrh-dev', 'nrh-rec']);
  t.same(parseNetnsList(''), []);
});

t.test('alivePid: only a live pid from a readable pid file', async (t) => {
  const dir = t.testdir({ self: `${process.pid}\n`, dead: '999999999\n', junk: 'abc', zero: '0' });
  t.equal(await alivePid(`${dir}/self`), process.pid);
  t.equal(await alivePid(`${dir}/dead`), undefined);
  t.equal(await alivePid(`${dir}/junk`), undefined);
  t.equal(await alivePid(`${dir}/zero`), undefined);
  t.equal(await alivePid(`${dir}/missing`), undefined);
});

t.test('setup arguments: this Node with tsx from this checkout runs the zx script', async (t) => {
  const node = ['--import', TSX_LOADER, SETUP_SCRIPT];
  t.same(setupArgs({}), node);
  t.same(setupArgs({ skipBox: true, forceBox: true }), [...node, '--no-box', '--force-box']);
  t.same(setupArgs({ dockerBox: true }), [...node, '--docker-box']);
  t.match(SETUP_SCRIPT, /\/vms\/setup-host\.ts$/);
  t.match(TSX_LOADER, /^file:\/\/\/.*\/node_modules\/tsx\/dist\/loader\.mjs$/);
  t.ok(existsSync(SETUP_SCRIPT) && existsSync(fileURLToPath(TSX_LOADER)), 'both exist');
  t.equal(IN_NETNS_ENV, 'NRH_IN_NETNS');
});

t.test(
  'setup starts libvirtd in the lab netns after the script, as run does (doctor must pass right after)',
  async (t) => {
    const order: string[] = [];
    const lines: LogEvent[] = [];
    const run: RunCommand = async (file, args, o) => {
      order.push(`${file} ${args.join(' ')}`);
      o.onLine?.('stdout', 'setup-host: all 21 packages present');
      o.onLine?.('stdout', 'Progress: 50%');
      return { code: 0, stdout: '', stderr: '', durationMs: 1 };
    };
    const ensureHost = async (o: { netns: string; blackholes?: readonly string[] }) => {
      order.push(`ensureLabHost ${o.netns} ${o.blackholes?.join(',')}`);
      return { netns: o.netns, libvirtdPid: 4242, started: ['libvirtd (pid 4242)'] };
    };
    const r = await runSetup({
      deadline: deadlineIn(5000),
      netns: 'nrh-lab',
      blackholes: ['10.198.0.0/24', '10.199.0.0/24'],
      run,
      ensureHost,
      logger: (e) => lines.push(e),
    });
    t.same(order, [
      `${process.execPath} --import ${TSX_LOADER} ${SETUP_SCRIPT}`,
      'ensureLabHost nrh-lab 10.198.0.0/24,10.199.0.0/24',
    ]);
    t.same(r.labHost, { netns: 'nrh-lab', libvirtdPid: 4242, started: ['libvirtd (pid 4242)'] });
    t.same(
      lines.map((e) => (e.kind === 'info' ? e.message : e.kind)),
      ['setup-host: all 21 packages present'],
      'progress bars are dropped',
    );

    order.length = 0;
    const failing: RunCommand = async (file, args) => {
      order.push(`${file} ${args.join(' ')}`);
      throw new CommandError(
        `node ${args.join(' ')}`,
        2,
        'setup-host: prerequisites failed: the box build needs Go >= 1.21',
      );
    };
    await t.rejects(
      runSetup({ deadline: deadlineIn(5000), netns: 'nrh-lab', run: failing, ensureHost }),
      {
        exitCode: 2,
        message: /^setup: the host is not ready \(nothing was changed\):\n.*needs Go >= 1\.21/,
      },
      "the script's exit 2 (a missing prerequisite) is a usage error, as `setup --help` says",
    );
    const broken: RunCommand = async (file, args) => {
      throw new CommandError(
        `${file} ${args.join(' ')}`,
        1,
        'setup-host: debootstrap failed: `debootstrap ...` exited 1',
      );
    };
    await t.rejects(
      runSetup({ deadline: deadlineIn(5000), netns: '', run: broken, ensureHost }),
      {
        exitCode: 3,
        message: /debootstrap failed/,
      },
      'a failed step is an infrastructure error',
    );
    t.same(order, [`${process.execPath} --import ${TSX_LOADER} ${SETUP_SCRIPT}`], 'a failed script starts nothing');
    t.equal(
      (await runSetup({ deadline: deadlineIn(5000), netns: '', run, ensureHost })).labHost,
      undefined,
      '--netns "" starts no lab host',
    );
  },
);

t.test('setup ends by naming the next commands', async (t) => {
  const text = nextCommands({ netns: 'nrh-lab', libvirtdPid: 4242, started: [] });
  t.match(text, /^setup done\. libvirtd \(pid 4242\) runs in netns nrh-lab\. Next:$/m);
  t.match(text, /^ {2}reboot-harness doctor /m);
  t.match(text, /^ {2}reboot-harness run cni-ipam-reboot /m);
  t.match(text, /^ {2}reboot-harness run --nomad <build> /m);
});
