// A source build's log (named in the failure message, kept in the build cache CI jobs share) holds go's output with
// credentials redacted: go prints a private GOPROXY's URL with its user:password when a module cannot be fetched. The
// tree is a Nomad-shaped git repository and `go` a stand-in that fails the way go does, so nothing is compiled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CliDeps } from '../../lib/cli/deps.js';
import { main } from '../../lib/cli/main.js';
import { filesUnder } from '../helpers/release-mirror.js';
import { nomadShapedTree } from '../helpers/nomad-shaped-tree.js';

const PASSWORD = 'pr0xy-Passw0rd-7731';

t.test("a failed source build's log keeps a private GOPROXY's password out", async (t) => {
  const dir = t.testdir({});
  // fails every command but the version question as go does against a proxy that lacks a module
  const { tree } = nomadShapedTree(
    dir,
    `echo "go: github.com/ugorji/go/codec@v1.2.12: reading https://bob:${PASSWORD}@proxy.example/mod/github.com/ugorji/go/codec/@v/v1.2.12.info: 404 Not Found" >&2\nexit 1`,
  );
  const out: string[] = [];
  const err: string[] = [];
  const cache = join(dir, 'xdg');
  const deps: CliDeps = {
    env: {
      PATH: `${join(dir, 'bin')}:/usr/bin:/bin`,
      HOME: dir,
      XDG_CACHE_HOME: cache,
      GOPROXY: `https://bob:${PASSWORD}@proxy.example/mod`,
    },
    cwd: dir,
    isTTY: false,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    makeEnv: () => {
      throw new Error('build must not make a lab');
    },
  };
  const code = await main(['build', `git:${tree}`], deps);
  t.not(code, 0, 'the build failed');
  t.notMatch(err.join('') + out.join(''), PASSWORD, 'not on the console');
  const logs = filesUnder(join(cache, 'nomad-reboot-harness', 'builds')).filter((f) => f.endsWith('.log'));
  t.ok(logs.length > 0, `the build wrote its log: ${logs.join(', ')}`);
  const text = logs.map((f) => readFileSync(join(cache, 'nomad-reboot-harness', 'builds', f), 'utf8')).join('\n');
  t.match(text, /reading https:\/\/\[REDACTED\]@proxy\.example\/mod\//, "go's line is kept, its credentials not");
  t.notMatch(text, PASSWORD, 'the password is nowhere in the log');
});
