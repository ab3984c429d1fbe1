// bridge-exec-reboot with the user's own job (--job), every alloc judged, through the real CLI main() against STAND-INS:
// the Nomad API stand-in (real-shaped payloads, scripted timelines learnt from real 1.9.3/1.9.7 runs) and a stand-in lab
// (no VMs). The host-side job conversion is the stand-in's HCL reader here; the real `nomad job run -output` is in test/e2e.
import { SENTINEL_CHECKS } from '../../lib/steps/sentinel-steps.js';
import { AGENT_RESOURCES } from '../../lib/checks/agent-resources.js';
import { SERVICES } from '../../lib/checks/services.js';
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { runOnStandIns } from '../helpers/stand-in-run.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import type { Timeline } from '../helpers/fake-nomad/index.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';
import { CLIENT_REBOOTED } from '../../lib/checks/client-rebooted.js';
import { NODE_BACK } from '../../lib/checks/node-back.js';

const example = (name: string): string => fileURLToPath(new URL(`../../examples/jobs/${name}`, import.meta.url));
const COUNT3 = example('count-3.nomad.hcl');
const TWO_GROUPS = example('two-groups.nomad.hcl');

interface Verdict {
  id: string;
  status: string;
  label: string;
  message: string;
  evidence: string[];
  causedBy?: string;
  perAlloc?: { allocId: string; name: string; status: string; detail: string }[];
}

async function run(t: Test, timeline: Timeline, extra: string[] = [], dir = t.testdir({})) {
  const { code, s } = await runOnStandIns(t, extra, { timeline, dir });
  let junit = '';
  let summary: {
    runs: {
      verdicts: Verdict[];
      properties: Record<string, string>;
      steps: { name: string; status: string; message?: string; values?: Record<string, string> }[];
      timeline: { at: string; lane: string; label: string; detail: string | null; machine?: string }[];
      runId: string;
      error?: { message: string };
    }[];
  } = { runs: [] };
  try {
    junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    validateJUnit(t, join(dir, 'junit.xml'));
  } catch {
    // no report: refused before anything was created (exit 2)
  }
  const verdict = (id: string): Verdict => summary.runs[0]!.verdicts.find((v) => v.id === id)!;
  const xml = junit ? new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit) : undefined;
  const cases = xml ? ([xml.testsuites.testsuite.testcase].flat() as Record<string, unknown>[]) : [];
  const junitCase = (id: string) => JSON.stringify(cases.find((c) => String(c['name']).endsWith(`(${id})`)));
  return { code, summary, verdict, junitCase, s, err: s.err.join('\n'), dir };
}

t.test(
  'count-3 job on the 1.9.3 failure timeline: every alloc judged failed with the duplicate-IP error, exit 1',
  async (t) => {
    const r = await run(t, 'duplicate-ip', ['--job', COUNT3]);
    t.equal(r.code, 1);
    const restored = r.verdict('alloc-restored');
    t.equal(restored.perAlloc?.length, 3, 'three allocs judged');
    t.same(restored.perAlloc!.map((p) => p.name).sort(), [
      'bridge-count-3.web[0]',
      'bridge-count-3.web[1]',
      'bridge-count-3.web[2]',
    ]);
    t.ok(
      restored.perAlloc!.every(
        (p) => p.status === 'failed' && /^failed: .*duplicate allocation is not allowed/.test(p.detail),
      ),
      'each failed, quoting its Setup Failure',
    );
    t.match(restored.message, /^0 of 3 allocs restored; 3 failed/);
    const dup = r.verdict('no-duplicate-ip');
    t.equal(dup.status, 'failed');
    t.match(dup.message, /for 3 of 3 allocs/);
    t.ok(
      dup.perAlloc!.every((p) => /Setup Failure: 172\.26\.64\.\d+ was already allocated to/.test(p.detail)),
      'the duplicate-IP error per alloc',
    );
    const uniq = r.verdict('unique-ips');
    t.not(uniq.status, 'failed', 'failed allocs are not live allocs with their own address');
    t.notMatch(uniq.message, /3 live allocs/);
    t.ok(r.verdict('task-restarted').perAlloc!.every((p) => p.status === 'failed'));
    t.match(
      r.junitCase('alloc-restored'),
      /bridge-count-3\.web\[0\][^]*bridge-count-3\.web\[1\][^]*bridge-count-3\.web\[2\]/,
      'per-alloc lines in the JUnit case',
    );
    t.equal(r.summary.runs[0]!.properties['allocs.count'], '3');
    // the facts people look for: the machines' kernels and CNI plugins, the agent's own errors since the fault
    const props = r.summary.runs[0]!.properties;
    t.equal(props['client.kernel'], '6.1.0-37-amd64');
    t.equal(props['server.kernel'], '6.1.0-37-amd64');
    t.match(props['client.cni.plugins'], /^bridge v1\.6\.2, firewall v1\.6\.2, host-local v1\.6\.2/);
    t.match(props['client.agent.warnings'], /^\d+ since the fault \(\d+ WARN, [1-9]\d* ERROR\)/);
    const agent = r.summary.runs[0]!.timeline.filter((e) => e.label.startsWith('nomad agent '));
    t.ok(
      agent.some(
        (e) => e.label === 'nomad agent ERROR' && e.machine === 'client' && /prerun failed/.test(e.detail ?? ''),
      ),
      `the prerun failure listed with its time: ${JSON.stringify(agent.slice(0, 2))}`,
    );
    const page = readFileSync(join(r.dir, 'reports', r.summary.runs[0]!.runId, 'report.html'), 'utf8');
    t.match(page, /<section id="agent-warnings">[^]*prerun failed/, 'and on the HTML page');
    t.match(r.summary.runs[0]!.properties['allocs.outcomes'], /web\[0\]=failed.*web\[1\]=failed.*web\[2\]=failed/);
    t.ok(r.s.lab.destroyed);
  },
);

t.test(
  'count-3 job on the failure timeline with --expect no-duplicate-ip=fail: the reproduction passes, exit 0',
  async (t) => {
    const r = await run(t, 'duplicate-ip', ['--job', COUNT3, '--expect', 'no-duplicate-ip=fail']);
    t.equal(r.code, 0);
    t.equal(r.verdict('alloc-restored').label, 'expected failure');
    t.equal(r.verdict('alloc-restored').causedBy, 'no-duplicate-ip');
  },
);

t.test(
  'count-3 job whose failed restores Nomad reschedules 1 s later: the settle waits for it, names it, and judges the replacements',
  async (t) => {
    const resched =
      'reschedule {\n      attempts       = 1\n      interval       = "1h"\n      delay          = "1s"\n      delay_function = "constant"\n      unlimited      = false\n    }';
    const dir = t.testdir({
      'resched.nomad.hcl': readFileSync(COUNT3, 'utf8').replace(/reschedule \{[^}]*\}/, resched),
    });
    const r = await run(t, 'duplicate-ip', ['--job', join(dir, 'resched.nomad.hcl')], dir);
    t.equal(r.code, 1, 'the restore still failed');
    const settled = r.summary.runs[0]!.properties['job.settled'] ?? '';
    t.match(
      settled,
      /^yes: all 3 allocs settled: bridge-count-3\.web\[0\] replaced by [0-9a-f]{8}: running; .*; waited for Nomad's delayed reschedule of web\[0\] \(\d\d:\d\d:\d\d, follow-up eval ([0-9a-f]{8})\), web\[1\] \(\d\d:\d\d:\d\d, follow-up eval \1\), web\[2\]/,
      'one follow-up eval for the three, as Nomad batches them',
    );
    t.match(
      [...r.s.out, ...r.s.err].join('\n'),
      /web\[1\] failed; Nomad reschedules it at \d\d:\d\d:\d\d \(follow-up eval [0-9a-f]{8}\): waiting/,
      "the step's progress names it",
    );
    const restored = r.verdict('alloc-restored');
    t.ok(
      restored.perAlloc!.every((p) => p.status === 'failed' && /replaced|rescheduled/.test(p.detail)),
      JSON.stringify(restored.perAlloc),
    );
    t.match(
      r.summary.runs[0]!.properties['allocs.outcomes'],
      /web\[0\]=replaced.*web\[1\]=replaced.*web\[2\]=replaced/,
    );
  },
);

t.test('count-3 job restored: all pass, every alloc restored and reachable, exit 0', async (t) => {
  const r = await run(t, 'restored', ['--job', COUNT3]);
  t.equal(r.code, 0, r.err);
  // every check but those about the host and the agents judges each alloc; services has nothing to judge in a job
  // without any; the sentinels judge machines, not allocs
  const HOST = [CLIENT_REBOOTED, NODE_BACK, AGENT_RESOURCES];
  const machines = new Set<string>(SENTINEL_CHECKS.map((c) => c.id));
  for (const { id } of CHECKS.filter((c) => !HOST.includes(c) && c !== SERVICES && !machines.has(c.id))) {
    const v = r.verdict(id);
    t.equal(v.status, 'passed', `${id}: ${v.message}`);
    t.equal(v.perAlloc?.length, 3, `${id} has three per-alloc lines`);
  }
  t.equal(r.verdict(AGENT_RESOURCES.id).status, 'passed', 'the agent judged once');
  t.match(r.verdict(SERVICES.id), { status: 'skipped', message: /the job has no Nomad-native service/ });
  t.match(r.verdict('alloc-restored').message, /^all 3 allocs restored in place/);
  t.match(r.verdict('unique-ips').message, /^3 live allocs on the node, each with its own address/);
  t.match(r.verdict('http-reachable').message, /every mapped port of all 3 allocs answered \(6 probes/);
  const steps = r.summary.runs[0]!.steps.map((s) => s.name);
  const healthy = r.summary.runs[0]!.steps.find((s) => /^wait until every alloc of the job runs/.test(s.name));
  t.same(healthy?.values, { 'job.expected_allocs': '3' }, 'the count is a value of the step, not in its name');
  t.ok(steps.some((n) => /wait until the job has settled/.test(n)));
  t.match(r.summary.runs[0]!.properties['job.settled'], /^yes: all 3 allocs settled/);
  // issue 14: when the harness saw each alloc running again, after its task's Started (the stand-ins share one clock)
  const noticed = r.summary.runs[0]!.properties['restore.noticed_after'] ?? '';
  t.match(
    noticed,
    /^web\[0\] \d+ ms, web\[1\] \d+ ms, web\[2\] \d+ ms \(client clock [+-]\d+ ms ± \d+ ms; seen first by (the event stream|the settle wait|web\[\d\]: the )/,
    `restore noticed: ${noticed}`,
  );
  t.ok(
    [...noticed.matchAll(/\] (\d+) ms/g)].every((m) => Number(m[1]) < 5000),
    "within the stand-in's few seconds",
  );
  const settle = r.summary.runs[0]!.steps.find((s) => /wait until the job has settled/.test(s.name)) as
    | { durationMs: number }
    | undefined;
  t.ok(
    (settle?.durationMs ?? 0) >= 200,
    `the settle step confirmed for its window (0.2 s in stand-in time): ${settle?.durationMs} ms`,
  );
  t.notMatch(
    r.summary.runs[0]!.properties['job.settled'],
    /settle quiet period/,
    "settled on Nomad's state, not on the quiet period",
  );
  const runId = (r.summary.runs[0] as unknown as { runId: string }).runId;
  const html = readFileSync(join(r.dir, 'reports', runId, 'report.html'), 'utf8');
  t.equal((html.match(/<tr data-alloc=/g) ?? []).length, 3, 'the HTML report has a row per alloc');
  t.match(html, /<th title="Alloc restored"><code>alloc-restored<\/code><\/th>/);
});

t.test(
  'node marked down (1.9.7, heartbeat_grace 10s): the alloc is "replaced" with the heartbeat_grace explanation, exit 1',
  async (t) => {
    const r = await run(t, 'replaced', ['--heartbeat-grace', '10s']);
    t.equal(r.code, 1);
    const v = r.verdict('alloc-restored');
    t.equal(v.status, 'failed');
    t.match(
      v.message,
      /^not restored \(replaced\): alloc \S+ \(bridge-exec-http\.web\[0\]\) was replaced by \S+ \(running\), matched by job, group and name/,
    );
    t.match(v.message, /heartbeat_grace \(10s\) is shorter than the reboot/);
    t.match(v.message, /"alloc is lost since its node is down"/);
    t.match(v.message, /Node heartbeat missed/);
    t.match(r.summary.runs[0]!.properties['job.settled'], /^yes/, 'settled on the replacement, not on the lost alloc');
    t.equal(r.verdict('http-reachable').status, 'passed', 'the replacement answers');
    const allocs = [...r.s.nomad.cluster.allocs.values()];
    t.equal(allocs.length, 2);
    t.ok(
      allocs.every((a) => !a.PreviousAllocation && !a.NextAllocation),
      'as on real 1.9.7: no link between the lost alloc and its replacement',
    );
  },
);

t.test('node marked down with --expect alloc-restored=fail: exit 0', async (t) => {
  const r = await run(t, 'replaced', ['--heartbeat-grace', '10s', '--expect', 'alloc-restored=fail']);
  t.equal(
    r.code,
    0,
    JSON.stringify(r.summary.runs[0]?.verdicts.filter((v) => v.label === 'failed').map((v) => v.message)),
  );
  t.equal(
    r.verdict('task-restarted').causedBy,
    'alloc-restored',
    'its tasks did not come back in place: a consequence',
  );
});

t.test('a host-network job: probed on its host port only; task-netns skips its allocs with the reason', async (t) => {
  const r = await run(t, 'restored', ['--job', example('host-network.nomad.hcl')]);
  t.equal(r.code, 0, r.err);
  t.match(r.summary.runs[0]!.properties['job.groups'], /web\[2\] host/);
  const reach = r.verdict('http-reachable');
  t.equal(reach.label, 'passed', reach.message);
  t.notMatch(reach.evidence.join('\n'), /\[bridge /, 'no bridge address to probe');
  t.match(reach.evidence.join('\n'), /\[host-port http\] from server: GET http:\/\/[\d.]+:\d+\/ -> 200/);
  const netns = r.verdict('task-netns');
  t.equal(netns.label, 'skipped', netns.message);
  t.match(netns.perAlloc, [
    { status: 'skipped', detail: /group "web" runs in host network mode: no network namespace of its own/ },
    { status: 'skipped', detail: /group "web" runs in host network mode/ },
  ]);
});

t.test('a two-group job: every alloc of both groups judged, the TCP port probed with a connect', async (t) => {
  const r = await run(t, 'restored', ['--job', TWO_GROUPS]);
  t.equal(r.code, 0, r.err);
  const reach = r.verdict('http-reachable');
  t.same(reach.perAlloc!.map((p) => p.name).sort(), ['bridge-two-groups.echo[0]', 'bridge-two-groups.web[0]']);
  t.match(
    reach.evidence.join('\n'),
    /\[bridge echo\] from client: TCP connect tcp:\/\/172\.26\.64\.\d+:9000 -> connected/,
  );
  t.match(reach.evidence.join('\n'), /\[host-port http\] from server: GET http:\/\/[\d.]+:\d+\/ -> 200/);
  t.match(r.summary.runs[0]!.properties['job.groups'], /web\[1\] bridge echo\[1\] bridge/);
  t.ok(
    r.s.lab.commands['client']!.some((c) => c.includes('/dev/tcp/')),
    'a real TCP probe command was sent to the client',
  );
});

t.test(
  "a job that does not fit the client: placement failure with Nomad's text and the fix, exit 3 before any reboot",
  async (t) => {
    const dir = t.testdir({ 'big.nomad.hcl': readFileSync(COUNT3, 'utf8').replace('memory = 128', 'memory = 4096') });
    const r = await run(t, 'restored', ['--job', join(dir, 'big.nomad.hcl')], dir);
    t.equal(r.code, 3);
    const err = r.summary.runs[0]!.error?.message ?? '';
    t.match(err, /job "bridge-count-3" does not fit the client/);
    t.match(
      err,
      /Task Group "web" \(failed to place 3 allocations\): \* Resources exhausted on 1 nodes \* Dimension "memory" exhausted on 1 nodes/,
    );
    t.match(err, /fix: give the client VM more memory: --memory \d+/);
    t.notOk(
      r.summary.runs[0]!.steps.some((s) => s.name.startsWith('reboot')),
      'no reboot happened',
    );
    t.equal(r.summary.runs[0]!.verdicts.filter((v) => v.status !== 'skipped').length, 0, 'no verdict was reached');
  },
);

t.test('an alloc that fails before the reboot: exit 3 naming each alloc and its last events', async (t) => {
  const dir = t.testdir({ 'fails.nomad.hcl': readFileSync(COUNT3, 'utf8') });
  // the client cannot start the second alloc's task (a broken task), as a real driver failure shows it
  const { code } = await runOnStandIns(t, ['--job', join(dir, 'fails.nomad.hcl')], {
    dir,
    before: (s) =>
      s.nomad.cluster.failStart.set(
        'bridge-count-3.web[1]',
        'failed to launch command with executor: exec: "/usr/bin/python3": permission denied',
      ),
  });
  t.equal(code, 3);
  const err = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).runs[0].error.message as string;
  t.match(err, /job "bridge-count-3" never became healthy/);
  t.match(
    err,
    /bridge-count-3\.web\[1\] \S+ failed: task web dead \(last events: [^)]*Driver Failure: failed to launch command/,
  );
  t.match(err, /bridge-count-3\.web\[0\] \S+ /, 'names the other allocs too');
});

t.test('bad job inputs: refused before anything is created, exit 2, every problem at once', async (t) => {
  const dir = t.testdir({
    'broken.nomad.hcl': 'job "x" {\n  group "g" {\n    count = \n  }\n}\n',
    'batch.nomad.hcl':
      'job "b" {\n  type = "batch"\n  group "g" {\n    task "t" {\n      driver = "exec"\n      config { command = "/bin/true" }\n    }\n  }\n}\n',
    'harness.yaml': 'job:\n  vars:\n    count: 3\n',
    'noports.nomad.hcl':
      'job "np" {\n  group "g" {\n    network { mode = "bridge" }\n    task "t" {\n      driver = "exec"\n      config { command = "/bin/sleep" }\n    }\n  }\n}\n',
  });
  const broken = await run(t, 'restored', ['--job', join(dir, 'broken.nomad.hcl')], dir);
  t.equal(broken.code, 2);
  t.match(broken.err, /job\.file \(--job\): Nomad cannot parse it: Error getting job struct: Error parsing job file/);
  t.same(broken.s.lab.commands, { server: [], client: [] }, 'no VM was touched');

  const batch = await run(t, 'restored', ['--job', join(dir, 'batch.nomad.hcl')], dir);
  t.equal(batch.code, 2);
  t.match(batch.err, /job "b" is a batch job: bridge-exec-reboot judges service jobs only/);
  t.match(batch.err, /run it on rolling-reboot or server-reboot, which judge system, sysbatch and batch jobs/);
  t.notMatch(batch.err, /has no group with network/, 'a batch job need map no port: its type is the problem');

  // A bridge job that maps no port: refused (http-reachable would fail every alloc as "not probed" after the run).
  const noPorts = await run(t, 'restored', ['--job', join(dir, 'noports.nomad.hcl')], dir);
  t.equal(noPorts.code, 2);
  t.match(noPorts.err, /job "np" group "g" is a bridge group the scenario cannot probe: it maps no port/);
  t.same(noPorts.s.lab.commands, { server: [], client: [] }, 'no VM was touched');

  const missing = await run(t, 'restored', ['--job', join(dir, 'nope.nomad.hcl')], dir);
  t.equal(missing.code, 2);
  t.match(missing.err, /job\.file \(--job\): cannot be read \(ENOENT\)/);

  const other = await run(
    t,
    'restored',
    ['--job', COUNT3, '--driver', 'docker', '--box', 'nomad-reboot-harness/bookworm-docker'],
    dir,
  );
  t.equal(other.code, 2);
  t.match(other.err, /cannot be combined with --driver docker/);

  const varsOnly = await run(t, 'restored', ['--config', join(dir, 'harness.yaml')], dir);
  t.equal(varsOnly.code, 2);
  t.match(varsOnly.err, /job\.vars: are variables for job\.file, which is not set/);
});

t.test('job.vars reach both parsers: count = 2 from harness.yaml makes two allocs', async (t) => {
  const dir = t.testdir({ 'harness.yaml': `job:\n  file: ${COUNT3}\n  vars:\n    count: 2\n` });
  const r = await run(t, 'restored', ['--config', join(dir, 'harness.yaml')], dir);
  t.equal(r.code, 0, r.err);
  t.equal(r.verdict('alloc-restored').perAlloc?.length, 2);
});
