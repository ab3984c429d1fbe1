// e2e tier: the example user scenario (examples/scenarios/server-reboot.ts, loaded with --scenarios as a user's own
// directory would be) on real VMs with a real Nomad build: the SERVER host reboots for real while the client's bridge
// alloc keeps serving. Takes the first build of NOMAD_BINARIES / NOMAD_BINARY; skips visibly without it or the lab.
// About 10 minutes cold under emulation; run under `flock /work/vm.lock`.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { buildsFromEnv, runCli, verdictsOf, NETNS, e2eReports } from '../helpers/real-nomad.js';
import { idsOf } from '../helpers/check-ids.js';
import { CHECKS as EXAMPLE } from '../../examples/scenarios/server-reboot.js';

t.setTimeout(60 * 60_000);
const build = buildsFromEnv()[0];
const skip = build ? vmSkipReason() : 'no Nomad build given: set NOMAD_BINARY=/path/to/nomad (or NOMAD_BINARIES)';
const CHECKS = idsOf(EXAMPLE);

t.test(
  `run server-reboot-example --scenarios examples/scenarios on Nomad ${build?.version ?? '(none)'}: the server host reboots, the client's alloc serves through it`,
  {
    skip: skip ?? false,
    timeout: 50 * 60_000,
  },
  async (t) => {
    const dir = t.testdir({});
    const { junit, summary, reportFlags } = e2eReports(dir);
    const r = await runCli(t, [
      'run',
      'server-reboot-example',
      '--scenarios',
      resolve('examples/scenarios'),
      '--nomad-binary',
      build!.path,
      '--netns',
      NETNS,
      ...reportFlags,
      '--artifacts',
      'always',
    ]);
    const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0];
    const v = verdictsOf(run);
    t.comment(`exit ${r.code}; ${[...v.values()].map((x) => `${x.id}=${x.label}: ${x.message}`).join('; ')}`);
    t.equal(r.code, 0, 'exit 0: every check of the example passed');
    validateJUnit(t, junit);
    t.same([...v.keys()], CHECKS, "the example's own checks, in its order");
    for (const id of CHECKS) t.equal(v.get(id)?.label, 'passed', `${id}: ${v.get(id)?.message}`);
    const p = (run?.properties ?? {}) as Record<string, string>;
    t.ok(
      p['server.boot_id.before'] &&
        p['server.boot_id.after'] &&
        p['server.boot_id.before'] !== p['server.boot_id.after'],
      'the server host really rebooted',
    );
    t.match(
      v.get('served-through-reboot')?.message ?? '',
      /^(\d+) of \1 probes answered$/,
      'probes made while the server was away, all answered',
    );
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  },
);
