// `reboot-harness build` interrupted (SIGTERM, as a cancelled CI job sends it) in the middle of a source build: exit
// 130 "interrupted" like every other command, not the compile failure the killed go command looks like, and no build
// in the cache. The tree is a Nomad-shaped git repository and `go` a stand-in that hangs, so nothing is compiled.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import t from 'tap';
import type { CliDeps } from '../../lib/cli/deps.js';
import { main } from '../../lib/cli/main.js';
import { filesUnder } from '../helpers/release-mirror.js';
import { nomadShapedTree } from '../helpers/nomad-shaped-tree.js';
import { killMarked, pidsWithArg, sleepMarker } from '../helpers/marked-processes.js';

t.test('build git:<tree> interrupted by SIGTERM during the build: exit 130, interrupted, nothing cached', async (t) => {
  const dir = t.testdir({});
  // answers the version question, then hangs like a long `go get` or `go build`
  const { tree } = nomadShapedTree(dir, 'echo started >> "$(dirname "$0")/started"\nexec sleep 180');

  const signals = new EventEmitter();
  const out: string[] = [];
  const err: string[] = [];
  const cache = join(dir, 'xdg');
  const deps: CliDeps = {
    env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: cache },
    cwd: dir,
    isTTY: false,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    signalSource: signals,
    makeEnv: () => {
      throw new Error('build must not make a lab');
    },
  };
  let signalled = 0;
  const timer = setInterval(() => {
    try {
      execFileSync('test', ['-e', join(dir, 'bin', 'started')]);
      clearInterval(timer);
      signalled = Date.now();
      signals.emit('SIGTERM', 'SIGTERM');
    } catch {
      /* go has not started yet */
    }
  }, 50);
  t.teardown(() => clearInterval(timer));
  const code = await main(['build', `git:${tree}`], deps);
  t.equal(code, 130, err.join(''));
  t.match(err.join(''), /^error: interrupted by SIGTERM$/m);
  t.match(
    err.join(''),
    /\[\d\/5\] [^\n]*: stopped after [^\n]* \(interrupted\)/,
    'the phase the signal stopped says so',
  );
  t.notMatch(err.join(''), /: failed after/, 'no phase is told as failed');
  t.notMatch(err.join(''), /does not compile|failed \(exit/, 'not told as a failed build');
  t.equal(out.join(''), '', 'no build printed');
  // Note: from the signal, against a go that would hang 180 s: a machine's load moves the start, not this
  const after = Date.now() - signalled;
  t.ok(signalled > 0 && after < 60_000, `the hanging go was stopped, not waited for (${after} ms after SIGTERM)`);
  const kept = filesUnder(join(cache, 'nomad-reboot-harness', 'builds'));
  t.same(
    kept.filter((f) => /^[0-9a-f]{64}\//.test(f) || /^(git|tmp)\//.test(f) || f.endsWith('.json')),
    [],
    `no build, record or work dir in the cache: ${kept.join(', ')}`,
  );
});

t.test(
  'a go that runs the work in a child of its own (no exec), SIGTERM 1 s in: stopped at once, no child left (Q403)',
  async (t) => {
    const dir = t.testdir({});
    const marker = sleepMarker();
    t.teardown(() => void killMarked(marker));
    // a wrapper script (or `go generate`'s generators): its child inherits go's output pipes and outlives a killed go
    nomadShapedTree(dir, `echo started >> "$(dirname "$0")/started"\nsleep 30 ${marker}`);
    const signals = new EventEmitter();
    const err: string[] = [];
    const deps: CliDeps = {
      env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') },
      cwd: dir,
      isTTY: false,
      out: () => {},
      err: (s) => void err.push(s),
      signalSource: signals,
      makeEnv: () => {
        throw new Error('build must not make a lab');
      },
    };
    let signalled = 0;
    let started = 0;
    const timer = setInterval(() => {
      if (!started && existsSync(join(dir, 'bin', 'started'))) started = Date.now();
      if (started && !signalled && Date.now() - started >= 1000) {
        clearInterval(timer);
        signalled = Date.now();
        signals.emit('SIGTERM', 'SIGTERM');
      }
    }, 50);
    t.teardown(() => clearInterval(timer));
    const code = await main(['build', `git:${join(dir, 'tree')}`], deps);
    const after = Date.now() - signalled;
    t.equal(code, 130, err.join(''));
    t.ok(signalled > 0 && after < 5000, `returned ${after} ms after SIGTERM, not once the shim's sleep ended (30 s)`);
    t.same(pidsWithArg(marker), [], 'no sleep of the shim left');
  },
);
