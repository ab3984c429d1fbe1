// The known-issue labeller: labels from git ancestry and from `nomad version`, conditions, consequences, the two loud
// findings, the three policies and the exit codes they give, a renamed binary, and the user's table with bad rows.
import t from 'tap';
import type { Verdict } from '../../lib/model/check.js';
import type { RunRecord } from '../../lib/model/run.js';
import { KNOWN_ISSUES } from '../../lib/known-issues/table.js';
import {
  fixState,
  fixedInText,
  KNOWN_ISSUE_NOT_REPRODUCED,
  labelText,
  labelVerdicts,
  type BuildUnderTest,
  type RunFacts,
} from '../../lib/known-issues/label.js';
import { mergeTables, parseKnownIssues } from '../../lib/known-issues/validate.js';
import { exitCodeOf } from '../../lib/report/outcome.js';
import { labelRecord } from '../../lib/session/known-issues.js';
import { SCENARIOS, SHIPPED_CHECKS } from '../../lib/cli/scenarios.js';
import { REBOOT_KINDS, TASK_DRIVERS } from '../../lib/model/kinds.js';
import { resolveConfig } from '../../lib/config/validate.js';

const v = (id: string, status: Verdict['status'], extra: Partial<Verdict> = {}): Verdict => ({
  id,
  title: id,
  status,
  message: `${id} ${status}`,
  evidence: [],
  expected: 'pass',
  met: status !== 'failed',
  label: status,
  ...extra,
});
const release = (version: string): BuildUnderTest => ({ describe: version, version, origin: 'release' });
const graceful: RunFacts = { scenario: 'bridge-exec-reboot', kind: 'graceful', driver: 'exec' };
const agentKill: RunFacts = { ...graceful, kind: 'agent-kill' };
const row = (id: string) => KNOWN_ISSUES.find((r) => r.id === id)!;
const label = (
  verdicts: Verdict[],
  build: BuildUnderTest,
  facts = graceful,
  policy: 'label' | 'expect' | 'off' = 'label',
) => labelVerdicts(verdicts, { table: KNOWN_ISSUES, policy, build, facts });

t.test(
  'the shipped table names only registered checks, real fault kinds, drivers and scenarios, once per id',
  async (t) => {
    const checks = new Set(SHIPPED_CHECKS.map((c) => c.id));
    const scenarios = new Set(SCENARIOS.map((s) => s.name));
    t.equal(new Set(KNOWN_ISSUES.map((r) => r.id)).size, KNOWN_ISSUES.length, 'ids unique');
    for (const r of KNOWN_ISSUES) {
      t.ok(
        r.checks.every((c) => checks.has(c)),
        `${r.id}: checks registered`,
      );
      t.ok(
        (r.conditions.kinds ?? []).every((k) => REBOOT_KINDS.includes(k)),
        `${r.id}: kinds`,
      );
      t.ok(
        (r.conditions.drivers ?? []).every((d) => TASK_DRIVERS.includes(d)),
        `${r.id}: drivers`,
      );
      t.ok(
        (r.conditions.scenarios ?? []).every((s) => scenarios.has(s)),
        `${r.id}: scenarios`,
      );
      t.ok(
        r.fixes.every((f) => /^[0-9a-f]{40}$/.test(f.commit)),
        `${r.id}: full commit ids`,
      );
      t.match(r.url, new RegExp(`^https://github\\.com/hashicorp/nomad/issues/${r.id.slice(3)}$`));
      t.ok(r.source.changelog.includes('[[GH-'), `${r.id}: cites its CHANGELOG line`);
    }
  },
);

t.test('labels from versions: the line of `nomad version` against the first fixed release of that line', async (t) => {
  const dirs = [v('task-dirs', 'failed')];
  t.same(label(dirs, release('1.11.3')).verdicts[0]!.knownIssue, {
    kind: 'known',
    issue: 'GH-28345',
    url: 'https://github.com/hashicorp/nomad/issues/28345',
    fixedIn: '2.0.5',
    detail: '1.11.3: no release of 1.11 has the fix',
  });
  t.equal(labelText(label(dirs, release('2.0.4')).verdicts[0]!.knownIssue!), 'known: GH-28345 (fixed in 2.0.5)');
  t.match(label(dirs, release('2.0.5')).verdicts[0]!.knownIssue, { kind: 'regression', issue: 'GH-28345' });
  t.match(label(dirs, release('1.11.9+ent')).verdicts[0]!.knownIssue, { kind: 'regression' }, 'Enterprise backport');
  t.match(label(dirs, release('1.11.8+ent')).verdicts[0]!.knownIssue, { kind: 'known' });
  t.match(label(dirs, release('1.8.4')).verdicts[0]!.knownIssue, {
    kind: 'unknown',
    detail: 'the table has no entry for 1.8 in GH-28345',
  });
  t.match(label(dirs, release('')).verdicts[0]!.knownIssue, { kind: 'unknown' }, 'no version: unknown');
  const env = [v('task-env', 'failed')];
  t.match(label(env, release('1.10.5'), agentKill).verdicts[0]!.knownIssue, {
    kind: 'known',
    issue: 'GH-26699',
    fixedIn: '1.10.6, 1.11.0',
  });
  t.match(label(env, release('1.11.0'), agentKill).verdicts[0]!.knownIssue, { kind: 'regression' }, 'cut from main');
  t.match(label([v('no-duplicate-ip', 'failed')], release('1.9.3')).verdicts[0]!.knownIssue, {
    kind: 'known',
    issue: 'GH-24650',
    fixedIn: '1.9.4, 1.10.0',
  });
  t.match(label([v('no-duplicate-ip', 'failed')], release('1.9.4')).verdicts[0]!.knownIssue, { kind: 'regression' });
  t.equal(fixedInText(row('GH-27885')), '2.0.1');
});

t.test('labels from git ancestry: exact for a source build, the version only where git could not tell', async (t) => {
  const [main, backport] = row('GH-28345').fixes.map((f) => f.commit);
  const git = (ancestry: Record<string, boolean | undefined>, version = '2.0.4'): BuildUnderTest => ({
    describe: 'git:/src/nomad@v2.0.4',
    version,
    origin: 'git',
    ancestry,
  });
  t.same(fixState(row('GH-28345'), git({ [main!]: false, [backport!]: false })), {
    has: 'no',
    by: 'ancestry',
    detail: 'the tree has none of 906508a67f, 67c53d176b',
  });
  t.match(fixState(row('GH-28345'), git({ [main!]: false, [backport!]: true }, '2.0.5-dev')), {
    has: 'yes',
    by: 'ancestry',
    detail: 'the tree has release/2.0.x 67c53d176b',
  });
  // main after the fix reports a version no line lists: only ancestry can tell
  t.match(fixState(row('GH-28345'), git({ [main!]: true, [backport!]: false }, '2.1.0-dev')), { has: 'yes' });
  t.match(fixState(row('GH-28345'), release('2.1.0-dev')), { has: 'unknown' });
  t.match(fixState(row('GH-28345'), git({ [main!]: undefined, [backport!]: false }, '2.0.4')), {
    has: 'no',
    by: 'version',
  });
  const l = label([v('task-dirs', 'failed')], git({ [main!]: false, [backport!]: false })).verdicts[0]!.knownIssue;
  t.equal(labelText(l!), 'known: GH-28345 (fixed in 2.0.5)');
});

t.test('conditions: a row explains a failure only under its fault kinds, drivers and scenarios', async (t) => {
  t.match(label([v('task-dirs', 'failed')], release('1.11.3'), agentKill).verdicts[0]!.knownIssue, { kind: 'new' });
  t.match(label([v('task-env', 'failed')], release('1.10.5'), graceful).verdicts[0]!.knownIssue, { kind: 'new' });
  const http = [v('http-reachable', 'failed')];
  t.match(label(http, release('1.9.4')).verdicts[0]!.knownIssue, { kind: 'new' }, 'exec: not GH-24292');
  t.match(label(http, release('1.9.4'), { ...graceful, driver: 'docker' }).verdicts[0]!.knownIssue, {
    kind: 'known',
    issue: 'GH-24292',
    fixedIn: '1.9.5, 1.10.0',
  });
  t.match(label(http, release('1.9.5'), { ...graceful, driver: 'docker' }).verdicts[0]!.knownIssue, {
    kind: 'regression',
  });
  t.same(
    label([v('task-dirs', 'passed'), v('node-back', 'skipped')], release('2.0.5')).verdicts.map((x) => x.knownIssue),
    [undefined, undefined],
    'only failed checks are labelled',
  );
});

t.test('a consequence follows its cause: alloc-restored and task-restarted after the duplicate IP', async (t) => {
  const out = label(
    [
      v('task-restarted', 'failed', { causedBy: 'alloc-restored' }),
      v('alloc-restored', 'failed', { causedBy: 'no-duplicate-ip' }),
      v('no-duplicate-ip', 'failed'),
      v('agent-resources', 'failed'),
    ],
    release('1.9.3'),
  ).verdicts;
  t.equal(labelText(out[0]!.knownIssue!), 'known: GH-24650 (fixed in 1.9.4, 1.10.0, via alloc-restored)');
  t.equal(labelText(out[1]!.knownIssue!), 'known: GH-24650 (fixed in 1.9.4, 1.10.0, via no-duplicate-ip)');
  t.equal(out[3]!.knownIssue!.kind, 'new', 'an unrelated failure (not under a reboot) is new');
});

t.test('the loud findings: not reproduced on a build without the fix; failed on a build with it', async (t) => {
  const passed = label([v('task-dirs', 'passed')], release('1.11.3'));
  t.same(
    passed.knownIssues.findings.map((f) => [f.kind, f.issue, f.checks]),
    [['not-reproduced', 'GH-28345', ['task-dirs']]],
  );
  t.match(passed.knownIssues.findings[0]!.message, /GH-28345 did not reproduce on a build without its fix \(1\.11\.3/);
  t.same(label([v('task-dirs', 'skipped')], release('1.11.3')).knownIssues.findings, [], 'a check that did not run');
  t.same(label([v('task-dirs', 'passed')], release('1.11.3'), agentKill).knownIssues.findings, [], 'conditions');
  t.same(label([v('task-dirs', 'passed')], release('2.0.5')).knownIssues.findings, [], 'fixed: a pass is right');
  // real 1.9.3, docker: the driver found its pause container after the reboot and no CNI ADD ran (GH-24292), so the
  // duplicate IP of GH-24650 cannot happen there
  const docker = { ...graceful, driver: 'docker' } as const;
  const dockerRun = [v('no-duplicate-ip', 'passed'), v('no-leaks', 'passed')];
  t.same(label(dockerRun, release('1.9.3'), docker).knownIssues.findings, [], 'GH-24650 is not asked of docker');
  t.same(
    label(dockerRun, release('1.9.3')).knownIssues.findings.map((f) => [f.kind, f.issue]),
    [['not-reproduced', 'GH-24650']],
    'exec: it is',
  );
  t.same(
    label([v('alloc-exec', 'passed')], release('1.11.3'), agentKill).knownIssues.findings,
    [],
    'a row that reproduces only sometimes (GH-27825) is no finding when it does not',
  );
  const regressed = label([v('task-dirs', 'failed')], release('2.0.5'));
  t.same(
    regressed.knownIssues.findings.map((f) => [f.kind, f.issue]),
    [['fix-regressed', 'GH-28345']],
  );
  t.equal(regressed.verdicts[0]!.knownIssue!.kind, 'regression', 'never labelled known');
  t.match(regressed.knownIssues.fixes['GH-28345'], { has: 'yes', by: 'version', detail: '2.0.5 >= 2.0.5' });
});

/** A judged run as the runner returns it, before labelling. */
const record = (verdicts: Verdict[], scenario = 'bridge-exec-reboot'): RunRecord => ({
  runId: 'r1',
  scenario,
  suiteName: `${scenario}@1.11.3`,
  hostname: 'h',
  startedAtMs: 0,
  durationMs: 1,
  properties: {},
  steps: [],
  verdicts,
  artifacts: [],
  timeline: [],
  outcome: verdicts.every((x) => x.met) ? 'passed' : 'failed',
});
const cfg = (knownIssues: 'label' | 'expect' | 'off', kind: 'graceful' | 'agent-kill' = 'graceful') => ({
  knownIssues,
  reboot: { kind } as never,
  task: { driver: 'exec' as const },
});

t.test('under expect, a check the user expects to pass by name stays failed, labelled (Q174)', async (t) => {
  const known = () => record([v('client-rebooted', 'passed'), v('task-dirs', 'failed')]);
  const mustPass = { ...cfg('expect'), expect: { scenario: undefined, perCheck: { 'task-dirs': 'pass' as const } } };
  const e = labelRecord(known(), mustPass, KNOWN_ISSUES, release('1.11.3'));
  t.match(e.verdicts[1], { status: 'failed', label: 'failed', met: false, knownIssue: { kind: 'known' } });
  t.equal(exitCodeOf([e]), 1, '--expect task-dirs=pass wins over the table: exit 1');
  const other = { ...cfg('expect'), expect: { scenario: undefined, perCheck: { 'alloc-exec': 'pass' as const } } };
  t.equal(exitCodeOf([labelRecord(known(), other, KNOWN_ISSUES, release('1.11.3'))]), 0, 'another check named: exit 0');
});

t.test(
  'policies and exit codes: label keeps them, expect expects known failures only, off shows nothing',
  async (t) => {
    const known = () => record([v('client-rebooted', 'passed'), v('task-dirs', 'failed')]);
    const l = labelRecord(known(), cfg('label'), KNOWN_ISSUES, release('1.11.3'));
    t.equal(l.outcome, 'failed');
    t.equal(exitCodeOf([l]), 1, 'label: exit code as without the table');
    t.match(l.verdicts[1], { status: 'failed', label: 'failed', met: false, knownIssue: { kind: 'known' } });
    const e = labelRecord(known(), cfg('expect'), KNOWN_ISSUES, release('1.11.3'));
    t.equal(exitCodeOf([e]), 0, 'expect: only a known issue reproduced, exit 0');
    t.match(e.verdicts[1], {
      status: 'failed',
      label: 'expected failure',
      met: true,
      expected: 'fail',
      message: 'task-dirs failed',
      knownIssue: { kind: 'known', issue: 'GH-28345' },
    });
    const o = labelRecord(known(), cfg('off'), KNOWN_ISSUES, release('1.11.3'));
    t.equal(exitCodeOf([o]), 1);
    t.notOk(
      o.verdicts.some((x) => x.knownIssue),
      'off: no label',
    );
    t.equal(o.knownIssues?.policy, 'off');

    const newFailure = labelRecord(
      record([v('task-dirs', 'failed'), v('http-reachable', 'failed')]),
      cfg('expect'),
      KNOWN_ISSUES,
      release('1.11.3'),
    );
    t.equal(exitCodeOf([newFailure]), 1, 'expect: a new failure beside a known one, exit 1');
    t.match(newFailure.verdicts[1], { label: 'failed', knownIssue: { kind: 'new' } });
    const regression = labelRecord(record([v('task-dirs', 'failed')]), cfg('expect'), KNOWN_ISSUES, release('2.0.5'));
    t.equal(exitCodeOf([regression]), 1, 'expect: a regression of a fix is never expected');
    const unknown = labelRecord(record([v('task-dirs', 'failed')]), cfg('expect'), KNOWN_ISSUES, release('1.8.0'));
    t.equal(exitCodeOf([unknown]), 1, 'expect: a build the table cannot place is not expected to fail');

    const notReproduced = () => record([v('task-dirs', 'passed')]);
    for (const policy of ['label', 'off'] as const) {
      const r = labelRecord(notReproduced(), cfg(policy), KNOWN_ISSUES, release('1.11.3'));
      t.equal(exitCodeOf([r]), 0, `${policy}: exit code unchanged by a finding`);
      t.equal(r.knownIssues?.findings[0]?.kind, 'not-reproduced', `${policy}: the finding is still recorded`);
    }
    const teardown: RunRecord = {
      ...record([v('task-dirs', 'failed')]),
      steps: [{ name: 'tear down', status: 'error', startedAtMs: 0, durationMs: 1, message: 'vagrant destroy failed' }],
    };
    t.equal(
      labelRecord(teardown, cfg('expect'), KNOWN_ISSUES, release('1.11.3')).outcome,
      'error',
      'expect: every check met, but the teardown broke: still an infrastructure error',
    );
    const x = labelRecord(notReproduced(), cfg('expect'), KNOWN_ISSUES, release('1.11.3'));
    t.equal(exitCodeOf([x]), 1, 'expect: a known issue that did not reproduce fails the run');
    t.match(x.verdicts.at(-1), { id: KNOWN_ISSUE_NOT_REPRODUCED, label: 'unexpected pass', met: false });
  },
);

t.test('a renamed binary: the same verdicts; the label follows what `nomad version` said, not the name', async (t) => {
  const verdicts = [v('client-rebooted', 'passed'), v('task-dirs', 'failed')];
  const named = (describe: string, version: string): BuildUnderTest => ({ describe, version, origin: 'path' });
  const a = labelVerdicts(verdicts, {
    table: KNOWN_ISSUES,
    policy: 'label',
    build: named('/b/nomad', '1.11.3'),
    facts: graceful,
  });
  const b = labelVerdicts(verdicts, {
    table: KNOWN_ISSUES,
    policy: 'label',
    build: named('/b/nomad-2.0.5-renamed', '1.11.3'),
    facts: graceful,
  });
  const strip = (xs: Verdict[]) => xs.map(({ knownIssue: _, ...rest }) => rest);
  t.same(strip(a.verdicts), verdicts, 'status, label, met and message as judged');
  t.same(strip(b.verdicts), verdicts);
  t.same(a.verdicts[1]!.knownIssue, b.verdicts[1]!.knownIssue, 'the name says 2.0.5, the binary says 1.11.3: known');
  const unreadable = labelVerdicts(verdicts, {
    table: KNOWN_ISSUES,
    policy: 'label',
    build: named('/b/x', ''),
    facts: graceful,
  });
  t.same(strip(unreadable.verdicts), verdicts);
  t.equal(unreadable.verdicts[1]!.knownIssue!.kind, 'unknown');
});

t.test("a user row's url is a web address: javascript:, spaces and quotes refused (pass 4, Q8)", async (t) => {
  const ctx = { checks: SHIPPED_CHECKS.map((c) => c.id), scenarios: SCENARIOS.map((s) => s.name) };
  const row = (url: string) => ({
    id: 'ACME-1',
    title: 'x',
    url,
    checks: ['task-dirs'],
    lines: { '1.9': '1.9.5' },
    source: 'x',
  });
  for (const url of ['javascript:alert(1)', 'http://exa mple/', 'https://x/"><b>', '/etc/passwd']) {
    const r = parseKnownIssues({ issues: [row(url)] }, 'mine.yaml', ctx);
    t.ok('problems' in r && r.problems.some((p) => /issues\[0\]\.url/.test(p.field)), url);
  }
  t.ok('rows' in parseKnownIssues({ issues: [row('https://tracker.example/ACME-1')] }, 'mine.yaml', ctx));
});

t.test("the user's table: rows added or replacing shipped ones; every problem of a bad file at once", async (t) => {
  const ctx = { checks: SHIPPED_CHECKS.map((c) => c.id), scenarios: SCENARIOS.map((s) => s.name) };
  const good = parseKnownIssues(
    {
      issues: [
        {
          id: 'GH-28345',
          title: 'task dirs, with our Enterprise backport',
          checks: ['task-dirs'],
          conditions: { kinds: ['graceful'] },
          reproduces: 'always',
          lines: { '1.11': '1.11.4', '2.0': { fixed_in: '2.0.5' } },
          source: 'our backport, ACME-7',
        },
        {
          id: 'ACME-12',
          title: 'our fork leaks a veth',
          url: 'https://tracker.example/ACME-12',
          checks: ['no-leaks'],
          fixes: [{ branch: 'acme/main', commit: 'abcdef1' }],
          source: 'commit abcdef1',
        },
      ],
    },
    'mine.yaml',
    ctx,
  );
  if (!('rows' in good)) throw new Error(JSON.stringify(good.problems));
  const table = mergeTables(KNOWN_ISSUES, good.rows);
  t.equal(table.length, KNOWN_ISSUES.length + 1);
  t.equal(table.find((r) => r.id === 'GH-28345')!.title, 'task dirs, with our Enterprise backport', 'replaced');
  const l = labelVerdicts([v('task-dirs', 'failed')], {
    table,
    policy: 'label',
    build: release('1.11.4'),
    facts: graceful,
  });
  t.equal(l.verdicts[0]!.knownIssue!.kind, 'regression', "the user's line entry wins");

  const bad = parseKnownIssues(
    {
      issues: [
        { id: 'GH-1', title: 'x', checks: ['task-dirz'], lines: { '1.11': '1.12.0' }, source: 's' },
        { id: 'no number', checks: [], conditions: { kinds: ['reboot'], colour: 'red' }, fixes: [{ commit: 'XYZ' }] },
        'a string',
        { id: 'GH-2', title: 't', checks: ['task-dirs'], source: 's' },
      ],
    },
    'bad.yaml',
    ctx,
  );
  if (!('problems' in bad)) throw new Error('accepted');
  t.same(
    bad.problems.map((p) => [p.field, p.message]),
    [
      ['bad.yaml: issues[0].checks', 'names no check'],
      ['bad.yaml: issues[0].lines.1.11', 'must be the first release of 1.11 with the fix, or null when none has it'],
      ['bad.yaml: issues[1].id', 'must be a word and a number'],
      ['bad.yaml: issues[1].title', 'must be a non-empty string'],
      ['bad.yaml: issues[1].url', 'is needed for an id that is not GH-<n>'],
      ['bad.yaml: issues[1].checks', 'must be a non-empty list of check names'],
      ['bad.yaml: issues[1].conditions.colour', 'is not a condition'],
      ['bad.yaml: issues[1].conditions.kinds', 'names no fault kind'],
      ['bad.yaml: issues[1].fixes[0].branch', 'must name the branch the commit is on'],
      ['bad.yaml: issues[1].fixes[0].commit', 'must be a commit id (7 to 40 lowercase hex digits)'],
      ['bad.yaml: issues[1].source', 'must be a non-empty string'],
      ['bad.yaml: issues[2]', 'must be a mapping'],
      ['bad.yaml: issues[3]', 'says nowhere where it is fixed'],
    ],
  );
  t.ok(
    bad.problems.every((p) => p.fix.length > 0),
    'each with its fix',
  );
  t.match(bad.problems[0], { value: 'task-dirz', fix: /use one of: .*task-dirs/ });
  t.match(parseKnownIssues({ rows: [] }, 'x.yaml', ctx), {
    problems: [{ field: 'x.yaml: rows', message: 'is not a key of a known-issue file' }, { field: 'x.yaml: issues' }],
  });
  // a key beside issues: is told with the rows' problems, not ignored with what it holds (Q366)
  const beside = parseKnownIssues(
    {
      colour: 'red',
      issues: [{ id: 'GH-2', title: 't', checks: ['task-dirs'], source: 's' }],
      extra_issues: [{ id: 'GH-3' }],
    },
    'k.yaml',
    ctx,
  );
  t.same('problems' in beside ? beside.problems.map((p) => [p.field, p.message, p.fix]) : beside, [
    ['k.yaml: colour', 'is not a key of a known-issue file', 'use issues: (docs/known-issues.md)'],
    ['k.yaml: extra_issues', 'is not a key of a known-issue file', 'use issues: (docs/known-issues.md)'],
    [
      'k.yaml: issues[0]',
      'says nowhere where it is fixed',
      'give fixes (commits), lines (first fixed release per line) or since_release',
    ],
  ]);
  t.notMatch(JSON.stringify(beside), /"red"/, 'what such a key holds is not shown, only its name');
});

t.test(
  'the policy and the file are config keys: harness.yaml (and matrix defaults), env, flags; a bad value named',
  async (t) => {
    const config = (
      file: Record<string, unknown> | undefined,
      env: Record<string, string>,
      flags: Record<string, unknown>,
    ) => resolveConfig({ file, env, flags, knownChecks: [] });
    t.match(
      config(undefined, {}, {}),
      { ok: true, config: { knownIssues: 'label', knownIssuesFile: undefined } },
      'default',
    );
    t.match(config({ known_issues: 'expect', known_issues_file: 'k.yaml' }, {}, {}), {
      config: { knownIssues: 'expect', knownIssuesFile: 'k.yaml' },
    });
    t.match(config({ known_issues: 'expect' }, { HARNESS_KNOWN_ISSUES: 'off' }, {}), {
      config: { knownIssues: 'off' },
    });
    t.match(config(undefined, { HARNESS_KNOWN_ISSUES: 'off' }, { 'known-issues': 'expect' }), {
      config: { knownIssues: 'expect' },
    });
    t.match(config({ known_issues: 'strict' }, {}, {}), {
      ok: false,
      problems: [{ field: 'harness.yaml: known_issues', value: 'strict', fix: 'use one of: label, expect, off' }],
    });
  },
);
