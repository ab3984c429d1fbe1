// Build specs: a path, a release version or a git source tree, told apart the way a user means them.
import t from 'tap';
import { parseBuildSpec, type BuildSpec } from '../../lib/builds/spec.js';

const spec = (text: string, exists: string[] = [], home?: string): BuildSpec => {
  const r = parseBuildSpec(text, '--nomad', { exists: (p) => exists.includes(p), ...(home ? { home } : {}) });
  if ('problem' in r) throw new Error(`unexpected problem for ${text}: ${r.problem.message}`);
  return r.spec;
};
const problem = (text: string) => {
  const r = parseBuildSpec(text, '--nomad');
  if ('spec' in r) throw new Error(`expected a problem for ${JSON.stringify(text)}, got ${JSON.stringify(r.spec)}`);
  return r.problem;
};

t.test('release versions: full versions, +ent, prereleases, latest; a leading v is dropped', async (t) => {
  t.same(spec('1.9.3'), { kind: 'release', version: '1.9.3' });
  t.same(spec('v1.9.7'), { kind: 'release', version: '1.9.7' });
  t.same(spec('1.9.3+ent'), { kind: 'release', version: '1.9.3+ent' });
  t.same(spec('1.10.0-rc.1'), { kind: 'release', version: '1.10.0-rc.1' });
  t.same(spec('latest'), { kind: 'release', version: 'latest' });
  t.same(spec('release:1.9.3'), { kind: 'release', version: '1.9.3' });
  t.same(spec(' 1.9.3 '), { kind: 'release', version: '1.9.3' }, 'surrounding blanks are ignored');
});

t.test('paths: anything else, ./1.9.3, and a version-looking name that is an existing file', async (t) => {
  t.same(spec('./1.9.3'), { kind: 'path', path: './1.9.3' });
  t.same(spec('1.9.3', ['1.9.3']), { kind: 'path', path: '1.9.3' }, 'a file named 1.9.3 wins over the release');
  t.same(spec('latest', ['latest']), { kind: 'path', path: 'latest' });
  t.same(spec('/usr/local/bin/nomad'), { kind: 'path', path: '/usr/local/bin/nomad' });
  t.same(spec('nomad'), { kind: 'path', path: 'nomad' });
  t.same(spec('path:1.9.3'), { kind: 'path', path: '1.9.3' }, 'path: forces a path');
  t.same(spec('~/bin/nomad', [], '/home/u'), { kind: 'path', path: '/home/u/bin/nomad' });
});

t.test('git source trees: HEAD or a ref after the first @; ~/ expanded', async (t) => {
  t.same(spec('git:/src/nomad'), { kind: 'git', dir: '/src/nomad' });
  t.same(spec('git:/src/nomad@v1.9.3'), { kind: 'git', dir: '/src/nomad', ref: 'v1.9.3' });
  t.same(spec('git:../nomad@release/1.9.x'), { kind: 'git', dir: '../nomad', ref: 'release/1.9.x' });
  t.same(spec('git:~/src/nomad@main', [], '/home/u'), { kind: 'git', dir: '/home/u/src/nomad', ref: 'main' });
});

t.test('problems name the field, the value and a fix', async (t) => {
  t.match(problem(''), { field: '--nomad', value: '', message: /empty/ });
  t.match(problem('1.9'), { value: '1.9', message: /not a full one/, fix: /major\.minor\.patch/ });
  t.match(problem('v1'), { message: /not a full one/ });
  t.match(problem('git:'), { message: /names no directory/ });
  t.match(problem('git:/src/nomad@'), { message: /empty ref/, fix: /git:\/src\/nomad for its HEAD/ });
  t.match(problem('git:/src/nomad@--upload-pack=x'), { message: /invalid ref/ }, 'no option smuggled into git');
  t.match(problem('release:1.9'), { message: /names no release version/ });
});
