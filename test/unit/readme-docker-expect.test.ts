// The README's docker command on 1.9.3 expects exactly the failures the docker e2e file predicts for 1.9.3 (and saw on
// real VMs): a README command that leaves one out exits 1 for a user who copies it.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { classify, dockerFailures } from '../helpers/real-nomad.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** The README's shell commands, each with its continuation lines joined. */
const commands = readme
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .filter((l) => /^npm run harness -- /.test(l));

t.test('the docker command on 1.9.3 expects what the docker e2e predicts for 1.9.3', async (t) => {
  const docker = commands.filter((c) => /--driver docker/.test(c) && /--nomad 1\.9\.3\b/.test(c));
  t.equal(docker.length, 1, 'one docker command on 1.9.3 in the README');
  const expected = [...(docker[0] ?? '').matchAll(/--expect (\S+)=fail/g)].map((m) => m[1]).sort();
  t.same(expected, dockerFailures(classify('nomad', 'v1.9.3')).sort(), docker[0] ?? '(none)');
});

t.test('the prediction itself: GH-24292 before 1.9.5, GH-28345 before 2.0.5', async (t) => {
  t.same(dockerFailures(classify('nomad', 'v1.9.3')).sort(), ['http-reachable', 'task-dirs', 'task-env', 'task-netns']);
  t.same(dockerFailures(classify('nomad', 'v1.9.7')), ['task-dirs']);
  t.same(dockerFailures(classify('nomad', 'v2.0.5')), []);
});
