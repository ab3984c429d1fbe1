// The CI templates under examples/ci: the GitHub Actions workflow passes actionlint, both files validate against the
// JSON schemas SchemaStore publishes (vendored by check-jsonschema), and each template's shard arithmetic, run through
// the real CLI's --list-cells, covers every cell of the matrix exactly once. Each validator is shown to reject a
// broken copy, so a pass means something.
import t, { type Test } from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { main } from '../../lib/cli/main.js';
import type { CellListing } from '../../lib/matrix/list.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { findActionlint, findVendoredSchemas } from '../helpers/ci-tools.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const GH = join(ROOT, 'examples/ci/github-actions.yml');
const GL = join(ROOT, 'examples/ci/gitlab-ci.yml');
type Map = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const load = (f: string): Map => parseYaml(readFileSync(f, 'utf8')) as Map;

/** The real CLI's --list-cells --json for the template's matrix file, from the repository root (as CI runs it). */
async function list(file: string, extra: string[]): Promise<CellListing> {
  const s = standInPerRun({}, { cwd: ROOT });
  const code = await main(['matrix', file, '--list-cells', '--json', ...extra], s.deps);
  if (code !== 0) throw new Error(`--list-cells exited ${code}: ${s.err.join('')}`);
  return JSON.parse(s.out.join('')) as CellListing;
}

/** Every cell exactly once over the given shard runs. */
function coversOnce(t: Test, all: CellListing, runs: CellListing[], what: string): void {
  const ran = runs.flatMap((r) => r.cells.map((c) => c.name));
  t.same(
    [...ran].sort(),
    all.cells.map((c) => c.name).sort(),
    `${what}: every cell runs exactly once (${ran.length} of ${all.cells.length})`,
  );
  t.equal(new Set(ran).size, ran.length, `${what}: no cell in two jobs`);
}

t.test('actionlint accepts the workflow (and rejects a broken copy)', async (t) => {
  const al = findActionlint();
  if ('missing' in al) return void t.pass('actionlint', { skip: al.missing });
  const run = (f: string): { code: number; out: string } => {
    try {
      return {
        code: 0,
        out: execFileSync(al.path, ['-no-color', '-oneline', f], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      };
    } catch (e) {
      const err = e as { status: number; stdout: string };
      return { code: err.status, out: err.stdout };
    }
  };
  const version = execFileSync(al.path, ['-version'], { encoding: 'utf8' }).split('\n')[0];
  const sc = spawnSync('sh', ['-c', 'command -v shellcheck']).status === 0;
  t.comment(`actionlint ${version}; ${sc ? 'with' : 'without'} shellcheck on the run: scripts`);
  const ok = run(GH);
  t.equal(ok.code, 0, `no findings${ok.out ? `:\n${ok.out}` : ''}`);
  const broken = join(t.testdir(), 'broken.yml');
  writeFileSync(
    broken,
    readFileSync(GH, 'utf8').replace('fromJSON(needs.plan.outputs.shards)', 'fromJSON(needs.plan.outputs.shard_list)'),
  );
  const bad = run(broken);
  t.equal(bad.code, 1, 'a reference to an output the plan job does not have is found');
  t.match(bad.out, /shard_list/);
});

t.test('both templates validate against the SchemaStore schemas (ajv)', async (t) => {
  const found = findVendoredSchemas();
  if ('missing' in found) return void t.pass('schema validation', { skip: found.missing });
  const validator = (file: string) => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    return ajv.compile(JSON.parse(readFileSync(join(found.dir, file), 'utf8')));
  };
  const show = (errs: ErrorObject[] | null | undefined) =>
    (errs ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath} ${e.message}`)
      .join('; ');
  for (const [what, schema, file, breakIt] of [
    [
      'GitHub workflow',
      'github-workflows.json',
      GH,
      (d: Map) => {
        d['jobs']['shard']['timeout'] = 5;
      },
    ],
    [
      'GitLab CI file',
      'gitlab-ci.json',
      GL,
      (d: Map) => {
        d['reboot-matrix']['artifacts']['when'] = 'sometimes';
      },
    ],
  ] as const) {
    const validate = validator(schema);
    const doc = load(file);
    t.ok(validate(doc), `${what} is valid against ${schema} ${show(validate.errors)}`);
    breakIt(doc);
    t.notOk(validate(doc), `${what} with a bad key or value is rejected (${show(validate.errors)})`);
  }
});

t.test(
  'GitLab: parallel N with --shard $CI_NODE_INDEX/$CI_NODE_TOTAL covers every cell once; reports kept',
  async (t) => {
    const doc = load(GL);
    const job = doc['reboot-matrix'];
    const n = job['parallel'] as number;
    t.ok(Number.isInteger(n) && n >= 1, `parallel: ${n}`);
    t.equal(doc['variables']['SHARDS'], String(n), 'the SHARDS the list-cells job prints equals parallel');
    const script = (job['script'] as string[]).join('\n');
    t.match(script, /--shard "\$CI_NODE_INDEX\/\$CI_NODE_TOTAL"/);
    const file = doc['variables']['MATRIX_FILE'] as string;
    const all = await list(file, []);
    t.ok(all.cells.length >= 2, `${all.cells.length} cells in ${file}`);
    // What GitLab runs: jobs CI_NODE_INDEX = 1..N of CI_NODE_TOTAL = N.
    const runs = await Promise.all(Array.from({ length: n }, (_, k) => list(file, ['--shard', `${k + 1}/${n}`])));
    coversOnce(t, all, runs, `parallel: ${n}`);
    t.equal(job['artifacts']['when'], 'always', 'reports kept on failure');
    const junit = job['artifacts']['reports']['junit'] as string;
    const written = /--junit "([^"]+)"/.exec(script)?.[1];
    for (let i = 1; i <= n; i++) {
      const path = written!.replace('$CI_NODE_INDEX', String(i));
      t.ok(
        new RegExp(`^${junit.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`).test(path),
        `${path} matches artifacts:reports:junit ${junit}`,
      );
    }
    const merge = doc['merge'];
    t.same(merge['needs'], [{ job: 'reboot-matrix', artifacts: true }]);
    t.equal(merge['when'], 'always');
    t.match((merge['script'] as string[]).join('\n'), /reboot-harness\.js merge reports --out reports\/merged/);
  },
);

t.test(
  "GitHub: the plan's shard jobs, fed through fromJSON into --shard, cover every cell once; reports always uploaded",
  async (t) => {
    const doc = load(GH);
    const dispatch = doc['on']['workflow_dispatch']['inputs']['shards']['default'] as number;
    const envShards = /^\$\{\{ inputs\.shards \|\| (\d+) \}\}$/.exec(doc['env']['SHARDS'])?.[1];
    t.equal(Number(envShards), dispatch, 'the nightly default equals the manual default');
    const plan = doc['jobs']['plan'];
    const listStep = (plan['steps'] as Map[]).find((s) => s['id'] === 'list')!;
    t.match(listStep['run'], /--list-cells --json --shards "\$SHARDS" > cells\.json/);
    t.match(listStep['run'], /echo "shards=\$\(jq -c \.shardJobs cells\.json\)" >> "\$GITHUB_OUTPUT"/);
    t.equal(plan['outputs']['shards'], '${{ steps.list.outputs.shards }}');
    const shard = doc['jobs']['shard'];
    t.equal(shard['strategy']['matrix']['include'], '${{ fromJSON(needs.plan.outputs.shards) }}');
    const runStep = (shard['steps'] as Map[]).find((s) => /--shard "\$SHARD"/.test(s['run'] ?? ''))!;
    t.equal(runStep['env']['SHARD'], '${{ matrix.spec }}');
    const file = doc['env']['MATRIX_FILE'] as string;
    for (const n of [Number(envShards), 1, 3, 7]) {
      const listing = await list(file, ['--shards', String(n)]);
      // The include entries are the plan's shardJobs; each job runs `--shard ${{ matrix.spec }}`.
      const runs = await Promise.all(listing.shardJobs.map((entry) => list(file, ['--shard', entry.spec])));
      coversOnce(t, listing, runs, `--shards ${n}`);
      t.ok(
        listing.shardJobs.length <= listing.cells.length,
        `--shards ${n}: ${listing.shardJobs.length} jobs, none empty`,
      );
    }
    const upload = (shard['steps'] as Map[]).find((s) => String(s['uses']).startsWith('actions/upload-artifact'))!;
    t.equal(upload['if'], 'always()', 'reports uploaded whatever happened');
    t.equal(upload['with']['name'], 'reports-shard-${{ matrix.shard }}');
    const merge = doc['jobs']['merge'];
    const download = (merge['steps'] as Map[]).find((s) => String(s['uses']).startsWith('actions/download-artifact'))!;
    t.equal(download['with']['pattern'], 'reports-shard-*');
    t.match(JSON.stringify(merge['steps']), /merge all-reports --out merged/);
    t.ok(
      (merge['steps'] as Map[]).some(
        (s) =>
          String(s['uses']).startsWith('EnricoMi/publish-unit-test-result-action') &&
          s['with']['files'] === 'merged/junit.xml',
      ),
      'the merged JUnit published',
    );
    t.match(
      readFileSync(GH, 'utf8'),
      /KERNEL=="kvm", GROUP="kvm", MODE="0666"/,
      'KVM opened to the runner by a udev rule',
    );
  },
);
