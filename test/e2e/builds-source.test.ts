// e2e tier: the harness itself builds real Nomad tags from a real hashicorp/nomad tree (NOMAD_SOURCE: a clone, or
// the bare snapshot the search tool fetches, which lacks 4 blobs a non-UI build does not need) through the `build`
// command, and each binary's `nomad version` names the tag's version and commit. Skips visibly without a tree.
// Takes 5 (warm Go caches) to 15 minutes per tag on 2 cores; the binaries land in the user's build cache.
import { execFileSync, spawnSync } from 'node:child_process';
import t from 'tap';
import { CLI } from '../helpers/cli-child.js';

t.setTimeout(90 * 60_000);

const source = process.env['NOMAD_SOURCE'];
const refs = (process.env['NOMAD_SOURCE_REFS'] ?? 'v1.9.3,v1.9.7').split(',').filter(Boolean);
const skip = source ? false : 'set NOMAD_SOURCE to a hashicorp/nomad clone (or bare git dir) to build tags from source';

for (const ref of refs) {
  t.test(`reboot-harness build git:$NOMAD_SOURCE@${ref}`, { skip }, async (t) => {
    const commit = execFileSync('git', ['--git-dir', gitDir(source!), 'rev-parse', `${ref}^{commit}`]).toString().trim();
    // Note: stderr (phases with elapsed time) goes straight to the terminal: a build takes minutes.
    const r = spawnSync(process.execPath, [CLI, 'build', `git:${source}@${ref}`, '--json'],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CI: 'true' }, maxBuffer: 1 << 20 });
    t.equal(r.status, 0, 'build exits 0');
    const doc = JSON.parse(r.stdout.toString()) as { builds: { version: string; revision: string; path: string;
      origin: { kind: string; commit: string; dirty: boolean } }[] };
    const b = doc.builds[0]!;
    t.equal(b.version, ref.replace(/^v/, ''), 'nomad version names the tag');
    t.equal(b.revision, commit, `the revision is ${ref}^{commit}`);
    t.match(b.origin, { kind: 'git', commit, dirty: false });
    t.match(execFileSync(b.path, ['version']).toString(), new RegExp(`^Nomad v${b.version}\\nBuildDate .*\\nRevision ${commit}\\n`));
  });
}

/** The git dir of a clone or of a bare repository. */
function gitDir(dir: string): string {
  return execFileSync('git', ['-C', dir, 'rev-parse', '--absolute-git-dir']).toString().trim();
}
