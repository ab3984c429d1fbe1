// Known issues keyed by a crash signature: a row on a check as broad as `no-agent-crash` labels a failure only when its
// signature matches the failure's message or evidence (the panic text and the head of its trace), so another panic on
// an old build stays "new"; the loud findings follow the signature too; a user's row may carry one, validated.
import t from 'tap';
import type { Verdict } from '../../lib/model/check.js';
import type { KnownIssue } from '../../lib/model/known-issue.js';
import type { AgentJournalRead, SentinelEvidence } from '../../lib/model/sentinels.js';
import { KNOWN_ISSUES } from '../../lib/known-issues/table.js';
import { labelVerdicts, rowExplains, type BuildUnderTest, type RunFacts } from '../../lib/known-issues/label.js';
import { parseKnownIssues } from '../../lib/known-issues/validate.js';
import { renderKnownIssuesDoc } from '../../lib/known-issues/doc.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { NO_AGENT_CRASH } from '../../lib/checks/no-agent-crash.js';
import { SCENARIOS, SHIPPED_CHECKS } from '../../lib/cli/scenarios.js';

const release = (version: string): BuildUnderTest => ({ describe: version, version, origin: 'release' });
const agentKill: RunFacts = { scenario: 'bridge-exec-reboot', kind: 'agent-kill', driver: 'exec' };
const label = (verdicts: Verdict[], version: string, table: readonly KnownIssue[] = KNOWN_ISSUES) =>
  labelVerdicts(verdicts, { table, policy: 'label', build: release(version), facts: agentKill });

const RUN_START = Date.parse('2026-12-05T10:00:00Z');
const FAULT_AT = Date.parse('2026-12-05T10:05:00Z');
const at = (ms: number) => `2026-12-05T10:05:${String(ms).padStart(2, '0')}.027733+0000 client-1`;

/** A client's journal: the agent restarted by the fault, then a panic of the restore (the shape Go prints it in). */
const panicJournal = (panic: string, frames: string[]): AgentJournalRead => ({
  machine: 'client-1',
  role: 'client',
  boots: [
    {
      boot: '0',
      lines: [
        `${at(3)} nomad[733]: ==> Nomad agent started! Log data will stream in below:`,
        `${at(4)} nomad[733]: panic: ${panic}`,
        `${at(4)} nomad[733]: goroutine 212 [running]:`,
        ...frames.map((f) => `${at(4)} nomad[733]: ${f}`),
        `${at(5)} systemd[1]: nomad.service: Main process exited, code=exited, status=2/INVALIDARGUMENT`,
      ],
    },
  ],
  unitShow: 'ActiveState=failed\nNRestarts=0\nExecMainStatus=2\n',
});
/** The verdict the real check gives on that journal. */
const crashVerdict = (agent: AgentJournalRead): Verdict => {
  const sentinels: SentinelEvidence = {
    watchFromMs: RUN_START,
    faultAtMs: FAULT_AT,
    agents: [agent],
    faults: [],
    logRules: { never: [], allowed: [] },
  };
  const j = judgeCheck(NO_AGENT_CRASH, { sentinels });
  return { ...j, expected: 'pass', met: j.status !== 'failed', label: j.status };
};

// the dynamic users hook's panic as Go prints it (runtime frames hidden): the hook, then its caller
const DYNAMIC_USER = panicJournal('assignment to entry in nil map', [
  'github.com/hashicorp/nomad/client/allocrunner/taskrunner.(*dynamicUsersHook).Prestart(0xc000a1e0c0, {0x4a7e8d0, 0xc0001a0000}, 0xc000b21e00, 0xc000b21e30)',
  '\t/home/runner/work/nomad/nomad/client/allocrunner/taskrunner/dynamic_users_hook.go:68 +0x1c5',
  'github.com/hashicorp/nomad/client/allocrunner/taskrunner.(*TaskRunner).prestart(0xc000b0e008)',
  '\t/home/runner/work/nomad/nomad/client/allocrunner/taskrunner/task_runner_hooks.go:272 +0x9e5',
]);
// another nil map panic on the same old build, in another function (a made-up one): not GH-24739
const OTHER_NIL_MAP = panicJournal('assignment to entry in nil map', [
  'github.com/hashicorp/nomad/client/allocrunner.(*allocRunner).someOtherHook(0xc0008f2a80)',
  '\t/home/runner/work/nomad/nomad/client/allocrunner/alloc_runner.go:1043 +0x96',
]);
// the client canonicalizing a nil alloc of the server's reply (GH-28187)
const NIL_ALLOC = panicJournal('runtime error: invalid memory address or nil pointer dereference', [
  '[signal SIGSEGV: segmentation violation code=0x1 addr=0x1a8 pc=0x2b3c4d5]',
  'github.com/hashicorp/nomad/nomad/structs.(*Allocation).Canonicalize(...)',
  '\t/home/runner/work/nomad/nomad/nomad/structs/alloc.go:292',
  'github.com/hashicorp/nomad/client.(*Client).watchAllocations(0xc000316008, 0xc0004f6060)',
  '\t/home/runner/work/nomad/nomad/client/client.go:2677 +0xe25',
]);
const keyringPanic = (caller: string) =>
  panicJournal('runtime error: slice bounds out of range [:12] with capacity 0', [
    'github.com/hashicorp/go-kms-wrapping/v2/aead.(*Wrapper).Decrypt(0xc000c8e000, {0x0, 0x0}, 0xc000d0a0f0, {0x0, 0x0, 0x0})',
    '\t/root/go/pkg/mod/github.com/hashicorp/go-kms-wrapping/v2@v2.0.16/aead/aead.go:272 +0x1a5',
    `github.com/hashicorp/nomad/nomad.(*Encrypter).${caller}(0xc000a2c000, {0xc000d2e1e0, 0x5c})`,
    '\t/home/runner/work/nomad/nomad/nomad/encrypter.go:809 +0x3fd',
  ]);

t.test('the real check on a real-shaped trace: its evidence reaches the frame a signature names', async (t) => {
  const v = crashVerdict(DYNAMIC_USER);
  t.equal(v.status, 'failed');
  t.ok(
    v.evidence.some((l) => l.includes('(*dynamicUsersHook).Prestart(')),
    'the hook frame',
  );
  t.ok(rowExplains(KNOWN_ISSUES.find((r) => r.id === 'GH-24739')!, v));
  t.notOk(rowExplains(KNOWN_ISSUES.find((r) => r.id === 'GH-24739')!, crashVerdict(OTHER_NIL_MAP)));
});

t.test('a signature row labels only the failures its signature matches; any other panic is new', async (t) => {
  const known = label([crashVerdict(DYNAMIC_USER)], '1.9.5');
  t.match(known.verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-24739', fixedIn: '1.9.6, 1.10.0' });
  t.same(known.knownIssues.findings, []);

  const other = label([crashVerdict(OTHER_NIL_MAP)], '1.9.5');
  t.same(other.verdicts[0]!.knownIssue, { kind: 'new' }, 'the same panic text in another function: new');
  t.same(other.knownIssues.findings, [], 'a row that reproduces sometimes: no not-reproduced finding');

  const fixed = label([crashVerdict(DYNAMIC_USER)], '1.9.6');
  t.match(fixed.verdicts[0]!.knownIssue, { kind: 'regression', issue: 'GH-24739' }, 'the build has the fix');
  t.match(fixed.knownIssues.findings, [{ kind: 'fix-regressed', issue: 'GH-24739', checks: ['no-agent-crash'] }]);
  const otherFixed = label([crashVerdict(OTHER_NIL_MAP)], '1.9.6');
  t.same(otherFixed.verdicts[0]!.knownIssue, { kind: 'new' });
  t.same(otherFixed.knownIssues.findings, [], 'another panic is no regression of the fix');

  const passed = label([{ ...crashVerdict(DYNAMIC_USER), status: 'passed', met: true }], '1.9.5');
  t.same(passed.knownIssues.findings, [], 'sometimes: a pass is no finding either');
});

t.test(
  'the client panic on a nil alloc (GH-28187): known before 2.0.4, and on the lines that never got the fix',
  async (t) => {
    const v = crashVerdict(NIL_ALLOC);
    t.match(label([v], '2.0.3').verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-28187', fixedIn: '2.0.4' });
    t.match(label([v], '1.11.3').verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-28187' });
    t.match(label([v], '2.0.4').verdicts[0]!.knownIssue, { kind: 'regression', issue: 'GH-28187' });
    t.same(label([crashVerdict(OTHER_NIL_MAP)], '2.0.3').verdicts[0]!.knownIssue, { kind: 'new' });
  },
);

t.test('the message counts as much as the evidence; every pattern must match', async (t) => {
  const row: KnownIssue = {
    ...KNOWN_ISSUES.find((r) => r.id === 'GH-24739')!,
    id: 'ACME-1',
    signature: ['^client-1: 1 crash \\(panic: boom', 'frame-b'],
  };
  const v = (message: string, evidence: string[]): Verdict => ({
    id: 'no-agent-crash',
    title: 'x',
    status: 'failed',
    message,
    evidence,
    expected: 'pass',
    met: false,
    label: 'failed',
  });
  t.ok(rowExplains(row, v('client-1: 1 crash (panic: boom)', ['  frame-b(...)'])));
  t.notOk(rowExplains(row, v('client-1: 1 crash (panic: boom)', ['  frame-c(...)'])), 'one pattern of two');
  t.notOk(rowExplains(row, v('client-1: 1 crash (panic: bang)', ['  frame-b(...)'])));
  t.notOk(rowExplains(row, { ...v('client-1: 1 crash (panic: boom)', ['frame-b']), id: 'no-leaks' }), 'its checks');
  t.ok(rowExplains({ ...row, signature: 'frame-b' }, v('m', ['frame-b'])), 'one pattern as a string');
  t.notOk(rowExplains({ ...row, signature: ['(unclosed'] }, v('(unclosed', [])), 'a bad pattern explains nothing');
  const plain: KnownIssue = { ...row, signature: undefined };
  t.ok(rowExplains(plain, v('anything', [])), 'no signature: any failure of its checks');
});

t.test('a signature row that must reproduce: a failure without its signature did not reproduce it', async (t) => {
  const always: KnownIssue = {
    ...KNOWN_ISSUES.find((r) => r.id === 'GH-24739')!,
    id: 'ACME-2',
    url: 'https://tracker.example/ACME-2',
    reproduces: 'always',
  };
  const l = label([crashVerdict(OTHER_NIL_MAP)], '1.9.5', [always]);
  t.same(l.verdicts[0]!.knownIssue, { kind: 'new' });
  t.match(l.knownIssues.findings, [{ kind: 'not-reproduced', issue: 'ACME-2', checks: ['no-agent-crash'] }]);
  t.match(l.knownIssues.findings[0]!.message, /no-agent-crash failed without its signature/);
  t.same(label([crashVerdict(DYNAMIC_USER)], '1.9.5', [always]).knownIssues.findings, [], 'it reproduced');
  const sometimes = label([crashVerdict(OTHER_NIL_MAP)], '1.9.5', [{ ...always, reproduces: 'sometimes' }]);
  t.same(sometimes.knownIssues.findings, [], 'sometimes: never not-reproduced');
});

t.test(
  'the keyring panic: the caller tells the startup read (GH-24383) from the state upsert (GH-24442)',
  async (t) => {
    const startup = crashVerdict(keyringPanic('loadKeyFromStore'));
    const upsert = crashVerdict(keyringPanic('decryptWrappedKeyTask'));
    t.match(label([startup], '1.9.1').verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-24383' });
    t.match(label([upsert], '1.9.1').verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-24442' });
    const on193 = label([upsert], '1.9.3');
    t.match(on193.verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-24442', fixedIn: '1.9.4, 1.10.0' });
    t.same(on193.knownIssues.findings, [], 'no regression of GH-24383, whose fix 1.9.3 has: not its panic');
    const startupOn193 = label([startup], '1.9.3');
    t.match(startupOn193.verdicts[0]!.knownIssue, { kind: 'regression', issue: 'GH-24383' });
    t.match(startupOn193.knownIssues.findings, [{ kind: 'fix-regressed', issue: 'GH-24383' }]);
    t.match(label([upsert], '1.10.0').verdicts[0]!.knownIssue, { kind: 'regression', issue: 'GH-24442' });
  },
);

t.test(
  'a failure two rows match: the one the build lacks the fix of labels it, the other is no regression',
  async (t) => {
    const crash = crashVerdict(DYNAMIC_USER);
    const broad: KnownIssue = {
      ...KNOWN_ISSUES.find((r) => r.id === 'GH-24739')!,
      id: 'ACME-3',
      url: 'https://tracker.example/ACME-3',
      signature: 'assignment to entry in nil map',
      lines: { '1.9': { fixedIn: '1.9.2' } },
    };
    const l = label([crash], '1.9.5', [broad, ...KNOWN_ISSUES]);
    t.match(l.verdicts[0]!.knownIssue, { kind: 'known', issue: 'GH-24739' });
    t.same(l.knownIssues.findings, [], 'ACME-3 is fixed on 1.9.5, but the failure is GH-24739, known');
  },
);

t.test("the user's rows: a signature is a pattern or a list of them, each compiled, the field named", async (t) => {
  const ctx = { checks: SHIPPED_CHECKS.map((c) => c.id), scenarios: SCENARIOS.map((s) => s.name) };
  const base = { title: 't', checks: ['no-agent-crash'], lines: { '1.9': '1.9.6' }, source: 's' };
  const good = parseKnownIssues(
    {
      issues: [
        { ...base, id: 'GH-1', signature: 'assignment to entry in nil map' },
        { ...base, id: 'GH-2', signature: ['nil map', '\\(\\*dynamicUsersHook\\)\\.Prestart\\('] },
      ],
    },
    'mine.yaml',
    ctx,
  );
  if (!('rows' in good)) throw new Error(JSON.stringify(good.problems));
  t.same(
    good.rows.map((r) => r.signature),
    [['assignment to entry in nil map'], ['nil map', '\\(\\*dynamicUsersHook\\)\\.Prestart\\(']],
  );
  t.equal(good.rows[1]!.reproduces, 'sometimes');
  const bad = parseKnownIssues(
    {
      issues: [
        { ...base, id: 'GH-3', signature: ['ok', '(*dynamicUsersHook).Prestart'] },
        { ...base, id: 'GH-4', signature: [] },
        { ...base, id: 'GH-5', signature: 7 },
        { ...base, id: 'GH-6', signature: ['', 3] },
        { ...base, id: 'GH-7', signature: '[:12]' },
      ],
    },
    'bad.yaml',
    ctx,
  );
  if (!('problems' in bad)) throw new Error('accepted');
  t.same(
    bad.problems.map((p) => p.field),
    [
      'bad.yaml: issues[0].signature[1]',
      'bad.yaml: issues[1].signature',
      'bad.yaml: issues[2].signature',
      'bad.yaml: issues[3].signature[0]',
      'bad.yaml: issues[3].signature[1]',
    ],
    "'[:12]' is a valid character class: accepted",
  );
  t.match(bad.problems[0], {
    value: '(*dynamicUsersHook).Prestart',
    message: /does not compile as a regular expression/,
    fix: /escape/,
  });
});

t.test('docs/known-issues.md shows each signature', async (t) => {
  const doc = renderKnownIssuesDoc(KNOWN_ISSUES);
  const line = doc.split('\n').find((l) => l.startsWith('| [GH-24739]'))!;
  t.match(line, 'signature `assignment to entry in nil map`, `\\(\\*dynamicUsersHook\\)\\.Prestart\\(`');
  t.match(doc, /signature: a regular expression or a list/);
});

t.test('the job-type rows: labelled only on their own symptom', async (t) => {
  const row = (id: string) => KNOWN_ISSUES.find((r) => r.id === id)!;
  const matches = (id: string, text: string) => [row(id).signature ?? []].flat().every((p) => new RegExp(p).test(text));
  t.ok(
    matches(
      'GH-27499',
      'client-1 (drained, graceful, eligible again): system/web[0] started 140.0s after the node was eligible again (bound 120s)',
    ),
    'GH-27499: a drained node late with its system alloc',
  );
  t.notOk(
    matches('GH-27499', 'client-2 (not hit): no alloc of the system job runs here (before: 1a2b3c4d)'),
    'GH-27499: a node never drained is another bug',
  );
  t.ok(matches('GH-25453', 'batch/sleep[0] 5f1e2d3c: complete with exit 0 after its executor was killed'));
  t.notOk(matches('GH-25453', 'batch/sleep[0] 5f1e2d3c: rescheduled against its policy'));
});
