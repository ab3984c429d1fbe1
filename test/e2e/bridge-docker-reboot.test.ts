// e2e tier: the docker variant (GH-24292) against REAL Nomad builds on real VMs with the Docker box, as one matrix
// (`driver: [docker]` x the builds, two cells in parallel). Nomad's history says: before 1.9.5 the restore finds the
// pause container's namespace (dockerd restarted it at boot) and skips the network setup, so the alloc runs again
// with no interface but lo and HTTP fails; from 1.9.5 (GH-24658) the CNI CHECK fails, the namespace is set up again
// and every check passes. Skips visibly without builds, the lab or the Docker box.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  buildsFromEnv,
  dockerFailures,
  runCli,
  verdictsOf,
  NETNS,
  e2eReports,
  reportsDirFor,
} from '../helpers/real-nomad.js';
import { DOCKER_BOX } from '../../lib/cluster/docker-image.js';
import { suiteName } from '../../lib/plan/names.js';
import { checkIds, idsOf } from '../helpers/check-ids.js';
import { ALLOC_RESTORED } from '../../lib/checks/alloc-restored.js';
import { TASK_RESTARTED } from '../../lib/checks/task-restarted.js';
import { NO_DUPLICATE_IP } from '../../lib/checks/no-duplicate-ip.js';

// Note: tap's per-file timeout (package.json) is far below a real VM run; this file sets its own.
t.setTimeout(90 * 60_000);

const builds = buildsFromEnv();
const skip =
  builds.length === 0
    ? 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b (or NOMAD_BINARY)'
    : dockerSkipReason();
const REBOOT_CHECKS = checkIds('bridge-exec-reboot');
/** What Nomad's history predicts fails for a docker alloc after a reboot on build `b` (GH-24292, GH-28345). */
const predicted = dockerFailures;

t.test(
  `matrix driver=[docker] x Nomad ${builds.map((b) => b.version).join(', ') || '(none)'}: GH-24292 before 1.9.5, fixed from 1.9.5; GH-28345 before 2.0.5`,
  { skip: skip ?? false, timeout: 80 * 60_000 },
  async (t) => {
    const names = builds.map((b) => b.version.replace(/^v/, ''));
    const lines = [
      'scenario: bridge-exec-reboot',
      'axes:',
      '  nomad:',
      ...builds.flatMap((b, i) => {
        const expect = predicted(b).map((id) => `"${id}=fail"`);
        return [
          `    - name: "${names[i]}"`,
          `      binary: ${JSON.stringify(b.path)}`,
          ...(expect.length ? [`      expect: [${expect.join(', ')}]`] : []),
        ];
      }),
      '  driver: [docker]',
      'defaults:',
      '  lab:',
      `    box: ${DOCKER_BOX}`,
      '    memory_mb: 1024',
      '  reports:',
      '    artifacts: always',
      `parallel: ${Math.min(2, builds.length)}`,
      'memory_budget_mb: 8192',
      '',
    ];
    // E2E_KEEP_DIR keeps the reports (the agent logs each check quotes) as the evidence docs/findings.md cites
    const dir = reportsDirFor(t);
    writeFileSync(join(dir, 'docker.yaml'), lines.join('\n'));
    const { junit, summary, reportFlags } = e2eReports(dir);
    const r = await runCli(t, ['matrix', join(dir, 'docker.yaml'), '--netns', NETNS, ...reportFlags]);
    t.equal(r.code, 0, "exit 0: every cell met what Nomad's history predicts");
    validateJUnit(t, junit, 'the merged JUnit');
    const s = JSON.parse(readFileSync(summary, 'utf8'));
    for (const [i, b] of builds.entries()) {
      // The suite is named as the planner names it (the matrix cell's address is bridge-exec-reboot/nomad=<n>/driver=docker).
      const cell = suiteName('bridge-exec-reboot', names[i], ['driver=docker']);
      const run = (s.runs as { suiteName: string; properties: Record<string, string> }[]).find(
        (x) => x.suiteName === cell,
      );
      t.ok(run, `${cell} ran`);
      if (!run) continue;
      t.equal(run.properties['task.driver'], 'docker', `${cell}: the docker job ran`);
      t.match(
        run.properties['docker.image'] ?? '',
        /^nomad-reboot-harness\/busybox:local sha256:[0-9a-f]{64}$/,
        `${cell}: its image was built in the VM`,
      );
      const v = verdictsOf(run as never);
      // The container running before the reboot was killed by it; the driver reports that (exit 137, or 255 when dockerd
      // lost it in the shutdown: real 1.9.7 gave both) when the client recovers the task, and the restart policy starts a
      // new one: the reboot's effect, quoted, not a failure after it.
      t.match(
        v.get('alloc-restored')?.evidence.join('\n') ?? '',
        /task web: the instance running before the reboot was ended by it \(exit (137|255), reported \S+Z\); restarted by the restart policy at/,
        `${b.version}: the killed container quoted as the reboot's effect`,
      );
      // Every check judged as predicted: the predicted ones expected failures, services skipped (the docker job declares
      // no Nomad service), every other one passed; a check that stops running (skipped) fails here.
      const expected = predicted(b);
      for (const id of REBOOT_CHECKS) {
        const want = expected.includes(id) ? 'expected failure' : id === 'services' ? 'skipped' : 'passed';
        t.equal(v.get(id)?.label, want, `${b.version}: ${id} ${want}: ${v.get(id)?.message}`);
      }
      t.same(
        [...v.keys()].sort(),
        [...REBOOT_CHECKS].sort(),
        `${b.version}: exactly the scenario's checks were judged`,
      );
      t.equal(v.get('services')?.label, 'skipped', `${b.version}: the docker job has no Nomad service`);
      if (!b.checksOnRestore) {
        // the GH-24292 picture: restored in place, task started again, no CNI error at all, and no network
        for (const id of idsOf([ALLOC_RESTORED, TASK_RESTARTED, NO_DUPLICATE_IP]))
          t.equal(v.get(id)?.label, 'passed', `${b.version}: ${id} passed`);
        t.equal(
          v.get('http-reachable')?.label,
          'expected failure',
          `${b.version}: HTTP does not answer after the reboot`,
        );
        t.match(
          v.get('http-reachable')?.evidence.join('\n') ?? '',
          /\[bridge( http)?\] from client: GET http:\/\/172\.26\.64\.\d+:80\/ -> curl: \(7\)/,
          `${b.version}: the bridge address refuses`,
        );
      }
    }
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  },
);
