// The CLI's twelfth adversarial pass (docs/cli-defects.md, rows Q128 on), through the real main() with the stand-ins:
// a matrix's reboot axis over upgrade-in-place cells that reboot nothing.
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';

t.setTimeout(2 * 60_000);

t.test(
  "a matrix's axes.reboot over upgrade-in-place cells without upgrade-then-reboot is refused naming them (Q128)",
  async (t) => {
    const matrix = (scenario: string, defaults = '') =>
      `scenario: ${scenario}\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5, upgrade_to: ./nomad-1.9.7 }\n  reboot: [graceful, hard]\n${defaults}`;
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'nomad-1.9.7': 'a build on disk',
      'm.yaml': matrix('upgrade-in-place'),
      'mixed.yaml': matrix('[rolling-reboot, upgrade-in-place]'),
      'ok.yaml': matrix('upgrade-in-place', 'defaults:\n  upgrade: { mode: upgrade-then-reboot }\n'),
    });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    t.equal(await main(['matrix', 'm.yaml', '--plan', '--netns', ''], s.deps), 2);
    let err = s.err.join('');
    t.match(
      err,
      /m\.yaml: axes\.reboot: names each cell's fault, and 2 cells upgrade-in-place\/nomad=a\/reboot=graceful, upgrade-in-place\/nomad=a\/reboot=hard inject none: upgrade-in-place reboots the client only with upgrade\.mode upgrade-then-reboot \(these cells: upgrade\)/,
    );
    t.match(err, /fix: give defaults\.upgrade\.mode: upgrade-then-reboot/);
    t.equal(s.out.join(''), '', 'no plan printed');
    s.err.length = 0;
    // the rolling-reboot cells of the same axis inject their kind; only the upgrade-in-place ones are named
    t.equal(await main(['matrix', 'mixed.yaml', '--plan', '--netns', ''], s.deps), 2);
    err = s.err.join('');
    t.match(err, /mixed\.yaml: axes\.reboot: names each cell's fault, and 2 cells upgrade-in-place\//);
    t.notMatch(err, /rolling-reboot\/nomad=a\/reboot=hard inject none/);
    s.err.length = 0;
    s.out.length = 0;
    // upgrade-then-reboot reboots the client with each cell's kind
    t.equal(await main(['matrix', 'ok.yaml', '--plan', '--netns', ''], s.deps), 0, s.err.join(''));
  },
);
