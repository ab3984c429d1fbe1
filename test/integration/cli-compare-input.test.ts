// compare's input problems through the real CLI process: a flag of another command, a bad value and two builds that
// cannot be used are one answer (exit 2), not one phase per try; nothing is created.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_COMPILED as CLI } from '../helpers/cli-child.js';

t.test('compare: a flag of another command is told with the value and build problems, at once', async (t) => {
  const dir = t.testdir({});
  const work = join(dir, 'work');
  const r = spawnSync(
    process.execPath,
    [CLI, 'compare', '--before', '/bin/true', '--after', '/nope', '--all', '--cpus', '0', '--netns', ''],
    { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, CI: 'true', HARNESS_WORK_DIR: work } },
  );
  t.equal(r.status, 2, 'exit 2');
  t.match(r.stderr, /4 problems/);
  t.match(r.stderr, /--all: is an option of `run`, `destroy`, not of `compare`/);
  t.match(r.stderr, /--cpus: must be a whole number from 1 to 16/);
  t.match(r.stderr, /--before: \/bin\/true: `version` printed nothing/);
  t.match(r.stderr, /--after: no file at \/nope/);
  t.same(readdirSync(dir), [], 'nothing created');
});
