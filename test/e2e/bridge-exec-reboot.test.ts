// e2e tier: bridge-exec-reboot against REAL Nomad builds on real VMs, with the verdicts Nomad's history predicts.
// Builds come from NOMAD_BINARIES (comma-separated paths) or NOMAD_BINARY; without them every test skips visibly.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';

const builds = (process.env['NOMAD_BINARIES'] ?? process.env['NOMAD_BINARY'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const CLI = join(process.cwd(), 'bin/reboot-harness.js');
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';

/** What Nomad's history says (nomad-reference.md §4.8): the tmpfs fix landed in 1.9.4. */
function expectationFor(version: string): { args: string[]; why: string } {
  const [maj = 0, min = 0, patch = 0] = version.replace(/^v/, '').split(/[.-]/).map(Number);
  const before194 = maj === 1 && (min < 9 || (min === 9 && patch < 4));
  return before194
    ? { args: ['--expect', 'no-duplicate-ip=fail'], why: `${version} keeps host-local state on disk: the restore must fail with the duplicate-IP error` }
    : { args: [], why: `${version} has the tmpfs fix: the alloc must be restored` };
}

function nomadVersion(path: string): string {
  return /Nomad (v\d+\.\d+\.\d+\S*)/.exec(execFileSync(path, ['version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
}

// Note: tap's per-file timeout (package.json) is far below a real VM run; this file sets its own.
t.setTimeout(120 * 60_000);

const skip = builds.length === 0 ? 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b (or NOMAD_BINARY)' : vmSkipReason();

t.test('bridge-exec-reboot against real Nomad builds', { skip: skip ?? false }, async (t) => {
  for (const build of builds) {
    const version = nomadVersion(build);
    const exp = expectationFor(version);
    await t.test(`Nomad ${version} (${build}): ${exp.why}`, { timeout: 30 * 60_000 }, async (t) => {
      const dir = t.testdir({});
      const junit = join(dir, 'junit.xml');
      const summary = join(dir, 'summary.json');
      const args = ['run', 'bridge-exec-reboot', '--nomad-binary', build, '--netns', NETNS, '--junit', junit, '--report-json', summary, '--reports-dir', join(dir, 'reports'), '--artifacts', 'always', ...exp.args];
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, CI: 'true' } });
        let stderr = '';
        child.stderr.on('data', (b: Buffer) => {
          stderr += b;
          process.stderr.write(b.toString().replace(/^/gm, '    | '));
        });
        child.stdout.on('data', (b: Buffer) => process.stderr.write(b.toString().replace(/^/gm, '    | ')));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
      t.equal(r.code, 0, `the verdicts match Nomad's history for ${version}`);
      const s = JSON.parse(readFileSync(summary, 'utf8'));
      const verdicts = (s.runs?.[0]?.verdicts ?? []) as { id: string; label: string }[];
      const label = (id: string) => verdicts.find((v) => v.id === id)?.label;
      if (exp.args.length) {
        t.equal(label('no-duplicate-ip'), 'expected failure', 'the duplicate-IP error was observed');
      } else {
        for (const id of ['client-rebooted', 'node-back', 'alloc-restored', 'task-restarted', 'http-reachable', 'no-duplicate-ip']) t.equal(label(id), 'passed', `${id} passed`);
      }
      const runId = /run (r[0-9a-z]+): scenario/.exec(r.stderr)?.[1];
      t.same(domainsMatching(runId ?? 'no-run-id'), [], 'no libvirt domain left');
    });
  }
});
