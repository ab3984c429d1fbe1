// The session machinery is callable by a command of its own: a stub command defined here runs one-cell plans of its
// own making (one per build it is given) through readSession, checkSession and runSession against STAND-INS, as a
// command like `bisect` does, and its input problems are told with the rest before anything runs.
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import type { CliCommand } from '../../lib/cli/command.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { checkSession, readSession, runSession, type SessionRequest } from '../../lib/cli/session-command.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { standInReportArgs } from '../helpers/stand-in-run.js';

const eachBuild: CliCommand = {
  name: 'each-build',
  summary: 'run bridge-exec-reboot once on each build given, one after the other',
  usage: ['reboot-harness each-build <build>... [run options]'],
  exits: '0 every build passed; 1 one did not; 2 usage or configuration error',
  options: [],
  configFlags: 'all run flags',
  positionals: { what: 'build', complete: 'files' },
  async run(args, deps) {
    const requests: SessionRequest[] = args.positionals.map((build, i) => ({
      command: eachBuild,
      args: {
        ...args,
        positionals: ['bridge-exec-reboot'],
        values: { ...args.values, 'nomad-binary': build, junit: join(deps.cwd, `junit-${i + 1}.xml`) },
      },
      deps,
      plan: 'run',
      named: () => ['bridge-exec-reboot'],
    }));
    // every plan judged before the first one runs
    const checked = [];
    for (const req of requests) checked.push(await checkSession(req, await readSession(req)));
    let worst = 0;
    for (const [i, req] of requests.entries()) {
      const code = await runSession(req, checked[i]!);
      deps.out(`each-build: ${args.positionals[i]} -> ${code}\n`);
      worst = Math.max(worst, code);
    }
    return worst;
  },
};

t.test('a command of its own runs one-cell plans, one per build, through the session machinery', async (t) => {
  const dir = t.testdir({});
  const s = standInPerRun(
    {
      '/stand-in/nomad-1.9.7': { timeline: 'restored', version: '1.9.7' },
      '/stand-in/nomad-1.9.3': { timeline: 'duplicate-ip', version: '1.9.3' },
    },
    { cwd: dir },
  );
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const argv = ['each-build', '/stand-in/nomad-1.9.7', '/stand-in/nomad-1.9.3', ...standInReportArgs(dir)];
  const code = await main(argv, s.deps, [...COMMANDS, eachBuild]);
  t.equal(code, 1, '1.9.3 fails no-duplicate-ip');
  t.equal(s.runs.length, 2, 'one lab per plan');
  const out = s.out.join('');
  t.match(out, /each-build: \/stand-in\/nomad-1\.9\.7 -> 0\n/);
  t.match(out, /each-build: \/stand-in\/nomad-1\.9\.3 -> 1\n/);
  t.ok(existsSync(join(dir, 'junit-1.xml')) && existsSync(join(dir, 'junit-2.xml')), 'each plan wrote its reports');
});

t.test("its plans' problems are told at once, before any plan runs", async (t) => {
  const dir = t.testdir({});
  const s = standInPerRun({ '/stand-in/nomad-1.9.7': { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
  const argv = ['each-build', '/stand-in/nomad-1.9.7', '--cpus', '0', '--bogus', ...standInReportArgs(dir)];
  t.equal(await main(argv, s.deps, [...COMMANDS, eachBuild]), 2);
  const err = s.err.join('');
  t.match(err, /--bogus: is not an option/);
  t.match(err, /--cpus: must be a whole number/);
  t.equal(s.runs.length, 0, 'nothing ran');
});
