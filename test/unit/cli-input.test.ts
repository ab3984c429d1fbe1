// The CLI against what a new user (or a careless one) types: secrets in URLs, output paths that cannot be written,
// repeated and unused flags, value checks; every case answered before anything is created, with exit 2.
import t from 'tap';
import { main, type CliDeps } from '../../lib/cli/main.js';

interface Probe {
  deps: CliDeps;
  out: () => string;
  err: () => string;
  /** every dependency that would create or touch something, in call order */
  effects: string[];
}

function probe(cwd: string, env: Record<string, string> = {}, extra: Partial<CliDeps> = {}): Probe {
  const out: string[] = [];
  const err: string[] = [];
  const effects: string[] = [];
  const deps: CliDeps = {
    env,
    cwd,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    isTTY: false,
    makeEnv: () => {
      effects.push('makeEnv');
      throw new Error('makeEnv must not be called in these tests');
    },
    prepareHost: async () => void effects.push('prepareHost'),
    checkBinary: async () => void effects.push('checkBinary'),
    destroy: async (_config, ids, all) => {
      effects.push(`destroy ${ids.join(',')}${all ? ' --all' : ''}`);
      return 0;
    },
    ...extra,
  };
  return { deps, out: () => out.join(''), err: () => err.join(''), effects };
}

const created = (p: Probe) => p.effects.filter((e) => e !== 'checkBinary');

t.test('credentials in a URL: exit 2 saying they are not supported, the secret never shown', async (t) => {
  const url = 'http://user:SECRET@127.0.0.1:59999/';
  for (const argv of [
    ['build', '1.9.7', '--releases-url', url],
    ['run', '--nomad', './n', '--releases-url', url],
    ['run', '--nomad', './n', '--releases-url', 'https://SECRETTOKEN@mirror.example/'],
  ]) {
    const p = probe(t.testdir());
    t.equal(await main(argv, p.deps), 2, argv.join(' '));
    t.match(p.err(), /--releases-url: must not carry credentials \(user:password@ in the URL is not supported\)/);
    t.match(p.err(), /fix: drop them from the URL: the releases site is fetched without authentication/);
    t.notMatch(p.out() + p.err(), 'SECRET', 'the secret is nowhere');
    t.match(p.err(), '[REDACTED]@');
    t.same(created(p), []);
  }
  const e = probe(t.testdir(), { NOMAD_RELEASES_URL: url });
  t.equal(await main(['build', '1.9.7'], e.deps), 2, 'from the environment too');
  t.match(e.err(), /env NOMAD_RELEASES_URL: must not carry credentials/);
  t.notMatch(e.err(), 'SECRET');
});
