// e2e tier: the GitLab template's report layout on a real failing run. GitLab resolves a JUnit case's
// [[ATTACHMENT|path]] from $CI_PROJECT_DIR, not from the JUnit file's folder, and shows only the first one. This runs
// `bridge-exec-reboot` on real VMs with the first build of NOMAD_BINARIES / NOMAD_BINARY, with the template's flags
// (`--reports-dir reports/shard-1 --junit reports/shard-1/junit.xml`) and CI_PROJECT_DIR set to a stand-in project
// directory (GitLab itself cannot run here), then the template's `merge reports --out reports/merged`: every
// attachment of both files must resolve from the project directory. A build before 1.9.4 fails for real (the
// duplicate-IP restore failure), so the failed cases carry attachments; from 1.9.4 on, the CHANGELOG's own failures do.
// Run under `flock /work/vm.lock`; skips visibly without a build or the lab.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { buildsFromEnv, runCli, NETNS } from '../helpers/real-nomad.js';

t.setTimeout(60 * 60_000);
const build = buildsFromEnv()[0];
const skip = build ? vmSkipReason() : 'no Nomad build given: set NOMAD_BINARY=/path/to/nomad (or NOMAD_BINARIES)';

const attachments = (xml: string) => [...xml.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);

/** The failed cases of a JUnit text with their first attachment (the one GitLab shows). */
function failedCases(xml: string): { name: string; first: string | undefined }[] {
  return [...xml.matchAll(/<testcase\b[^>]*\bname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)]
    .filter((m) => /<(failure|error)\b/.test(m[2]!))
    .map((m) => ({ name: m[1]!, first: attachments(m[2]!)[0] }));
}

t.test(
  `the GitLab layout on a real run of Nomad ${build?.version ?? '(none)'}: every attachment resolves from the project directory`,
  { skip: skip ?? false, timeout: 50 * 60_000 },
  async (t) => {
    const project = t.testdir({});
    const env = { CI_PROJECT_DIR: project, GITLAB_CI: 'true' };
    const shard = join(project, 'reports/shard-1');
    const r = await runCli(
      t,
      [
        'run',
        'bridge-exec-reboot',
        '--nomad-binary',
        build!.path,
        '--netns',
        NETNS,
        '--reports-dir',
        shard,
        '--junit',
        join(shard, 'junit.xml'),
        '--artifacts',
        'always',
      ],
      undefined,
      env,
    );
    t.comment(`run ${r.runIds.join(', ')}: exit ${r.code}`);
    t.equal(r.code, 1, 'exit 1: checks failed (a real failure to attach evidence to)');
    const junit = join(shard, 'junit.xml');
    validateJUnit(t, junit);
    const xml = readFileSync(junit, 'utf8');
    const paths = attachments(xml);
    t.ok(paths.length > 0, `${paths.length} attachment lines`);
    t.same(
      paths.filter((p) => !existsSync(resolve(project, p))),
      [],
      'every attachment resolves from the project directory',
    );
    t.ok(
      paths.every((p) => p.startsWith('reports/shard-1/')),
      'written from the project directory (GitLab), not from the JUnit folder',
    );
    const failed = failedCases(xml);
    t.comment(failed.map((c) => `${c.name}: ${c.first}`).join('\n'));
    t.ok(failed.length > 0, `${failed.length} failed cases`);
    t.same(
      failed.filter((c) => !c.first || !existsSync(resolve(project, c.first))),
      [],
      'every failed case has a first attachment (the one GitLab shows) that resolves',
    );

    const m = await runCli(
      t,
      ['merge', join(project, 'reports'), '--out', join(project, 'reports/merged')],
      undefined,
      env,
    );
    t.equal(m.code, 1, 'merge exits with the verdict it merged');
    const merged = readFileSync(join(project, 'reports/merged/junit.xml'), 'utf8');
    const mergedPaths = attachments(merged);
    t.ok(mergedPaths.length > 0, `merged: ${mergedPaths.length} attachment lines`);
    t.same(
      mergedPaths.filter((p) => !existsSync(resolve(project, p))),
      [],
      'merged: every attachment resolves from the project directory',
    );
    t.notMatch(m.stdout + m.stderr, /not among the inputs/, 'merge found every attachment among its inputs');
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no domain of run ${id} is left`);
  },
);
