// The executor: builds resolved once before the host, Ctrl-C during a build stops before anything is created.
import { EventEmitter } from 'node:events';
import t from 'tap';
import { executePlan, type ExecuteDeps } from '../../lib/session/execute.js';
import { planSession } from '../../lib/plan/plan.js';
import { InterruptedError } from '../../lib/errors.js';
import type { BuildInfo } from '../../lib/model/session.js';

const SCENARIO = {
  name: 's',
  summary: '',
  needsNomad: true,
  checks: [{ id: 'c', title: 'C', passesWhen: 'x', judge: () => ({ status: 'passed' as const, message: 'x' }) }],
  run: async () => [],
};
const plan = () => {
  const r = planSession({
    command: 'compare',
    positionals: ['s'],
    values: { before: './a', after: './b' },
    env: {},
    cwd: '/w',
    scenarios: [SCENARIO],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.plan;
};
const build = (path: string, version: string): BuildInfo => ({
  spec: path,
  path,
  sha256: 'x',
  version,
  revision: 'r',
  origin: { kind: 'path', path },
});

t.test(
  'Ctrl-C while a build is resolved: interrupted (exit 130), the host is never prepared, no cell runs',
  async (t) => {
    const proc = new EventEmitter();
    const seen: string[] = [];
    const deps: ExecuteDeps = {
      scenario: () => SCENARIO,
      newRunId: () => 'r1',
      logger: () => {},
      signalSource: proc,
      makeEnv: () => {
        throw new Error('no env may be made');
      },
      resolveBuild: (ref, signal) =>
        new Promise((resolve, reject) => {
          seen.push(ref.spec);
          setTimeout(() => proc.emit('SIGINT', 'SIGINT'), 10);
          signal.addEventListener('abort', () => reject(signal.reason));
          void resolve;
        }),
      prepareHost: async () => void seen.push('prepareHost'),
    };
    const err = await executePlan(plan(), deps).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, InterruptedError);
    t.equal((err as InterruptedError).exitCode, 130);
    t.same(seen, ['./a'], 'the second build was not started and the host not prepared');
    t.equal(proc.listenerCount('SIGINT'), 0, 'the watcher is gone');
  },
);

t.test(
  'compare: each distinct build resolved once, suites named by version, the before cell not counted',
  async (t) => {
    const resolved: string[] = [];
    const deps: ExecuteDeps = {
      scenario: () => SCENARIO,
      newRunId: (() => {
        let n = 0;
        return () => `r${++n}`;
      })(),
      logger: () => {},
      signalSource: new EventEmitter(),
      makeEnv: (config) => ({
        config,
        upLab: async () => {
          throw new Error('unused');
        },
        provisionNomad: async () => ({ nomadVersion: '' }),
        connectNomad: async () => {
          throw new Error('unused');
        },
      }),
      resolveBuild: async (ref) => (
        resolved.push(ref.spec), build(`/cache/${ref.spec}`, ref.spec === './a' ? '1.9.3' : '1.9.7')
      ),
    };
    const out = await executePlan(plan(), deps);
    if ('exitCode' in out) return t.fail('no host step was asked for');
    t.same(resolved, ['./a', './b']);
    t.same(
      out.session.suites.map((s) => [s.name, s.counts]),
      [
        ['s@1.9.3', false],
        ['s@1.9.7', true],
      ],
    );
    const after = out.session.suites[1]!.attempts[0]!;
    t.equal(after.properties['nomad.binary'], '/cache/./b', 'the cell installs the resolved binary');
    t.equal(after.properties['nomad.build.version'], '1.9.7');
    t.ok(out.session.comparison, 'a comparison section');
  },
);

t.test('a retry after an infrastructure error runs cold: the warm lab may be what broke', async (t) => {
  const broken = {
    ...SCENARIO,
    name: 'b',
    needsNomad: false,
    run: async () => {
      throw new Error('the lab broke');
    },
  };
  const r = planSession({ command: 'run', positionals: ['b'], values: {}, env: {}, cwd: '/w', scenarios: [broken] });
  if (!r.ok) return t.fail(JSON.stringify(r.problems));
  const warmPerAttempt: boolean[] = [];
  const deps: ExecuteDeps = {
    scenario: () => broken,
    newRunId: (() => {
      let n = 0;
      return () => `r${++n}`;
    })(),
    logger: () => {},
    signalSource: new EventEmitter(),
    makeEnv: (config) => (
      warmPerAttempt.push(config.lab.warm),
      {
        config,
        upLab: async () => {
          throw new Error('unused');
        },
        provisionNomad: async () => ({ nomadVersion: '' }),
        connectNomad: async () => {
          throw new Error('unused');
        },
      }
    ),
    resolveBuild: async () => {
      throw new Error('no builds');
    },
  };
  const out = await executePlan({ ...r.plan, retryInfra: true }, deps);
  if ('exitCode' in out) return t.fail('no host step was asked for');
  t.same(
    out.session.suites[0]!.attempts.map((a) => a.outcome),
    ['error', 'error'],
    'two attempts',
  );
  t.same(warmPerAttempt, [true, false], 'the first attempt may be warm, the retry is cold');
});
