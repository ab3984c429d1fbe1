// main(argv, deps) wired to the stand-ins for commands that must only plan or refuse (--plan, bad input): making a lab
// throws, each run gets the host network and a reports folder of the test's own, and answers its exit code with what
// it printed on stdout and stderr.
import type { Test } from 'tap';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { type StandInBuild, standInPerRun } from './stand-in-env.js';

/** The stand-in build most tests name: a 1.9.7 whose reboot restores everything. */
export const PLAN_NOMAD = '/stand-in/nomad-1.9.7';

export interface PlanOnlyRun {
  code: number;
  out: string;
  err: string;
}

export interface PlanOnlyCli {
  /** the test's own folder (the CLI's cwd), for the files a test writes */
  dir: string;
  /** the stand-ins behind the CLI: their runs (none, when only planning) and their dependencies */
  s: ReturnType<typeof standInPerRun>;
  /**
   * `argv` with `--netns ''` and `--reports-dir <dir>/reports` added after it (or before a `--` in it), and `env`
   * added to the dependencies' environment for this run only; stdout and stderr are those of this run alone.
   */
  run: (argv: string[], env?: Record<string, string>) => Promise<PlanOnlyRun>;
}

export function planOnlyCli(
  t: Test,
  builds: Record<string, StandInBuild> = { [PLAN_NOMAD]: { timeline: 'restored', version: '1.9.7' } },
): PlanOnlyCli {
  const dir = t.testdir({});
  const s = standInPerRun(builds, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const deps = {
    ...s.deps,
    makeEnv: () => {
      throw new Error('--plan must not make a lab');
    },
  };
  return {
    dir,
    s,
    run: async (argv, env = {}) => {
      s.out.length = 0;
      s.err.length = 0;
      const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
      const ours = ['--netns', '', '--reports-dir', join(dir, 'reports')];
      const code = await main([...argv.slice(0, end), ...ours, ...argv.slice(end)], {
        ...deps,
        env: { ...deps.env, ...env },
      });
      return { code, out: s.out.join(''), err: s.err.join('') };
    },
  };
}
