// e2e tier: the harness itself builds real Nomad tags from a real hashicorp/nomad tree (NOMAD_SOURCE: a clone, or
// the bare snapshot the search tool fetches, which lacks 4 blobs a non-UI build does not need) through the `build`
// command, and each binary's `nomad version` names the tag's version and commit. Skips visibly without a tree.
// Takes 5 (warm Go caches) to 15 minutes per tag on 2 cores; the binaries land in the user's build cache.
// Then, with the VM lab, `compare bridge-exec-reboot` between the first two refs as source specs (the builds come from
// the cache the tests above filled): the verdicts Nomad's history predicts (the after ref held to what its CHANGELOG
// says still fails after a host reboot, changelogFailures: task-dirs before 2.0.5, as `--expect task-dirs=fail`), and
// each report's provenance is the tag's commit. About 25 minutes under emulation.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CLI } from '../helpers/cli-child.js';
import {
  classify,
  expectArgs,
  expectedLabel,
  runCli,
  verdictsOf,
  NETNS,
  SHIPPED_JOB_SKIPS,
  e2eReports,
} from '../helpers/real-nomad.js';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { checkIds } from '../helpers/check-ids.js';

t.setTimeout(90 * 60_000);

const source = process.env['NOMAD_SOURCE'];
const refs = (process.env['NOMAD_SOURCE_REFS'] ?? 'v1.9.3,v1.9.7').split(',').filter(Boolean);
const skip = source ? false : 'set NOMAD_SOURCE to a hashicorp/nomad clone (or bare git dir) to build tags from source';

for (const ref of refs) {
  t.test(`reboot-harness build git:$NOMAD_SOURCE@${ref}`, { skip }, async (t) => {
    const commit = execFileSync('git', ['--git-dir', gitDir(source!), 'rev-parse', `${ref}^{commit}`])
      .toString()
      .trim();
    // Note: stderr (phases with elapsed time) goes straight to the terminal: a build takes minutes.
    const r = spawnSync(process.execPath, [CLI, 'build', `git:${source}@${ref}`, '--json'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, CI: 'true' },
      maxBuffer: 1 << 20,
    });
    t.equal(r.status, 0, 'build exits 0');
    const doc = JSON.parse(r.stdout.toString()) as {
      builds: {
        version: string;
        revision: string;
        path: string;
        origin: { kind: string; commit: string; dirty: boolean };
        properties: Record<string, string>;
      }[];
    };
    const b = doc.builds[0]!;
    // the recipe the tag's own GNUmakefile states: its codecgen pin, and hashicorpmetrics when its GO_TAGS adds it
    const makefile = execFileSync('git', ['--git-dir', gitDir(source!), 'show', `${ref}:GNUmakefile`]).toString();
    const pin = /go install (\S+\/codecgen)@(\S+)/.exec(makefile);
    t.equal(
      b.properties['nomad.build.generator.codecgen'],
      pin ? `${pin[1]}@${pin[2]}` : undefined,
      'codecgen as pinned',
    );
    const tags = (b.properties['nomad.build.tags'] ?? '').split(' ');
    t.ok(tags.includes('codegen_generated') && tags.includes('release') && !tags.includes('ui'), `tags: ${tags}`);
    t.equal(tags.includes('hashicorpmetrics'), /^GO_TAGS := hashicorpmetrics /m.test(makefile), 'hashicorpmetrics');
    // the version the tree itself states (a tag: its release; a branch such as main: the next one, "-dev")
    const versionGo = execFileSync('git', [
      '--git-dir',
      gitDir(source!),
      'show',
      `${ref}:version/version.go`,
    ]).toString();
    const stated = /^\s*Version\s*=\s*"([^"]+)"/m.exec(versionGo)?.[1];
    const pre = /^\s*VersionPrerelease\s*=\s*"([^"]*)"/m.exec(versionGo)?.[1];
    t.equal(b.version, `${stated}${pre ? `-${pre}` : ''}`, `nomad version names the version ${ref}'s tree states`);
    if (/^v\d/.test(ref)) t.equal(b.version, ref.replace(/^v/, ''), 'a tag: its version');
    t.equal(b.revision, commit, `the revision is ${ref}^{commit}`);
    t.match(b.origin, { kind: 'git', commit, dirty: false });
    t.match(
      execFileSync(b.path, ['version']).toString(),
      new RegExp(`^Nomad v${b.version}\\nBuildDate .*\\nRevision ${commit}\\n`),
    );
  });
}

const [refA, refB] = refs;
const pair = refA && refB ? [classify('', refA), classify('', refB)] : [];
t.test(
  `compare bridge-exec-reboot --before git:$NOMAD_SOURCE@${refA} --after git:$NOMAD_SOURCE@${refB}: the verdicts Nomad's history predicts, provenance from git`,
  {
    skip:
      skip ||
      vmSkipReason() ||
      (pair[0]?.beforeTmpfsFix && !pair[1]?.beforeTmpfsFix
        ? false
        : 'needs a ref before 1.9.4 then one from 1.9.4 on in NOMAD_SOURCE_REFS'),
    timeout: 70 * 60_000,
  },
  async (t) => {
    const dir = t.testdir({});
    const { junit, summary, reportFlags } = e2eReports(dir);
    const r = await runCli(t, [
      'compare',
      'bridge-exec-reboot',
      '--before',
      `git:${source}@${refA}`,
      '--after',
      `git:${source}@${refB}`,
      '--netns',
      NETNS,
      ...reportFlags,
      ...expectArgs(pair[1]!, 'graceful'),
    ]);
    t.equal(r.code, 0, `exit 0: the after build (${refB}) met its expectations (what the CHANGELOG predicts)`);
    validateJUnit(t, junit);
    const s = JSON.parse(readFileSync(summary, 'utf8'));
    for (const [i, ref] of [refA!, refB!].entries()) {
      const commit = execFileSync('git', ['--git-dir', gitDir(source!), 'rev-parse', `${ref}^{commit}`])
        .toString()
        .trim();
      const p = (s.runs?.[i]?.properties ?? {}) as Record<string, string>;
      t.match(
        p,
        {
          'nomad.build.origin.kind': 'git',
          'nomad.build.revision': commit,
          'nomad.build.version': ref.replace(/^v/, ''),
        },
        `${ref}: the report's provenance is the tag's commit`,
      );
      t.match(
        p['nomad.build.origin'] ?? '',
        new RegExp(` ${commit}$`),
        `${ref}: the origin names the commit (not dirty)`,
      );
      t.match(
        readFileSync(junit, 'utf8'),
        new RegExp(`<property name="nomad.build.revision" value="${commit}"/>`),
        `${ref}: a JUnit property`,
      );
    }
    const [vb, va] = [verdictsOf(s.runs?.[0]), verdictsOf(s.runs?.[1])];
    t.equal(vb.get('no-duplicate-ip')?.label, 'failed', `${refA}: the restore failed with the duplicate-IP error`);
    t.equal(vb.get('alloc-restored')?.label, 'failed', `${refA}: the alloc was not restored`);
    for (const id of checkIds('bridge-exec-reboot')) {
      const want = expectedLabel(pair[1]!, 'graceful', id, SHIPPED_JOB_SKIPS);
      t.equal(va.get(id)?.label, want, `${refB}: ${id} ${want}: ${va.get(id)?.message}`);
    }
    t.ok((s.comparison?.flipped ?? []).includes('no-duplicate-ip'), 'no-duplicate-ip flipped');
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  },
);

/** The git dir of a clone or of a bare repository. */
function gitDir(dir: string): string {
  return execFileSync('git', ['-C', dir, 'rev-parse', '--absolute-git-dir']).toString().trim();
}
