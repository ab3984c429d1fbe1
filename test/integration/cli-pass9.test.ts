// The CLI's ninth adversarial pass (docs/cli-defects.md, rows Q88 on), through the real main() with the stand-ins:
// the spellings of --json the parser takes, and whatever else the pass found.
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';

t.setTimeout(2 * 60_000);

t.test(
  '--json=yes, --json=1, --json=TRUE: an error is the JSON error document on stdout, as with --json (Q88)',
  async (t) => {
    for (const json of ['--json', '--json=yes', '--json=1', '--json=TRUE', '--json=true']) {
      const s = standInPerRun({}, { cwd: t.testdir({}) });
      const code = await main(['run', '--cpus', '0', '--plan', '--netns', '', json], s.deps);
      t.equal(code, 2, json);
      const doc = JSON.parse(s.out.join('')) as { schema: string; exitCode: number; problems: { field: string }[] };
      t.equal(doc.schema, 'nomad-reboot-harness/error@1', `${json}: the error document`);
      t.equal(doc.exitCode, 2);
      t.match(doc.problems, [{ field: '--cpus' }], `${json}: the problem in it`);
      t.match(s.err.join(''), /--cpus: must be a whole number/, `${json}: the text on stderr too`);
    }
    for (const json of ['--json=no', '--json=0', '--json=false']) {
      const s = standInPerRun({}, { cwd: t.testdir({}) });
      t.equal(await main(['run', '--cpus', '0', '--plan', '--netns', '', json], s.deps), 2, json);
      t.equal(s.out.join(''), '', `${json}: no document`);
    }
  },
);
