// HTML report: structure (parsed back as XML: failures first, every verdict, timeline rows in order), escaping of
// untrusted text, old records without a timeline, the layout helpers, and the redacting writer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import t from 'tap';
import { renderHtml } from '../../lib/report/html.js';
import { hostDownSpans, packLabels, rebootWindow, ticks } from '../../lib/report/html-layout.js';
import { fileHref, relTime } from '../../lib/report/html-text.js';
import type { RunRecord, TimelineEvent } from '../../lib/model/run.js';
import { htmlReporter, runDirName } from '../../lib/report/reporters.js';
import { writeSessionReports } from '../../lib/report/write.js';
import { contextIn, sessionOf } from '../helpers/session.js';

const fixture = (name: string): string => new URL(`../fixtures/report/${name}`, import.meta.url).pathname;
const loadRuns = (): RunRecord[] => JSON.parse(readFileSync(fixture('runs.json'), 'utf8')) as RunRecord[];
/** A failing bridge-exec-reboot run built from the real Nomad 1.9.3 capture (make-reboot-run.ts). */
const rebootRun = (): RunRecord => JSON.parse(readFileSync(fixture('reboot-run.json'), 'utf8')) as RunRecord;

interface El {
  tag: string;
  attrs: Record<string, string>;
  kids: El[];
  text: string;
}
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  unpairedTags: ['meta'],
  stopNodes: ['*.style'],
  htmlEntities: true,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
});
function build(items: Record<string, unknown>[]): El[] {
  return items.map((it) => {
    const tag = Object.keys(it).find((k) => k !== ':@')!;
    if (tag === '#text') return { tag, attrs: {}, kids: [], text: String(it[tag]) };
    const attrs = Object.fromEntries(
      Object.entries((it[':@'] ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
    const kids = build(it[tag] as Record<string, unknown>[]);
    return { tag, attrs, kids, text: kids.map((k) => k.text).join('') };
  });
}
/** Parse the page as XML (it is written well-formed on purpose: an unescaped `<` or `&` breaks this). */
function dom(html: string): El {
  const body = html.replace(/^<!doctype html>\n/, '');
  const valid = XMLValidator.validate(body, { unpairedTags: ['meta'] });
  if (valid !== true) throw new Error(`not well-formed: ${JSON.stringify(valid)}`);
  return { tag: '#root', attrs: {}, kids: build(parser.parse(body) as Record<string, unknown>[]), text: '' };
}
function all(el: El, pred: (e: El) => boolean, out: El[] = []): El[] {
  for (const k of el.kids) {
    if (pred(k)) out.push(k);
    all(k, pred, out);
  }
  return out;
}
const one = (el: El, pred: (e: El) => boolean, what: string): El => {
  const found = all(el, pred);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}`);
  return found[0]!;
};
const byId = (el: El, id: string): El => one(el, (e) => e.attrs['id'] === id, `#${id}`);

t.test('a failing reboot run: verdict, failures first, facts, timeline, events in order', async (t) => {
  const run = rebootRun();
  const doc = dom(renderHtml(run));
  t.equal(byId(doc, 'verdict').text, 'FAIL');
  t.match(
    one(
      one(doc, (e) => e.tag === 'head', 'head'),
      (e) => e.tag === 'title',
      'title',
    ).text,
    'FAIL bridge-exec-reboot[nomad=1.9.3] (r-20261202-1136-e5)',
  );

  const facts = Object.fromEntries(all(doc, (e) => e.tag === 'dd').map((d) => [d.attrs['data-key'], d.text]));
  t.match(facts, {
    'nomad.version': '1.9.3',
    'bootId.before': '6f1c2a9e-3b47-4d0e-9a51-0c7e2d4b8f13',
    'bootId.after': 'b83e0d57-91a2-4c6f-8e3d-5a7f1c2b9d04',
    'alloc.address.before': '172.26.64.2',
    'alloc.address.after': '172.26.64.2',
    'cni.stateDir.after': '/var/lib/cni/networks/nomad',
    'reboot.downtimeMs': '45.8s',
  });

  const checks = all(byId(doc, 'checks'), (e) => e.attrs['data-check'] !== undefined);
  t.same(
    checks.map((c) => c.attrs['data-check']),
    [
      'alloc-restored',
      'task-restarted',
      'http-reachable',
      'no-duplicate-ip',
      'client-rebooted',
      'node-back',
      'unique-ips',
    ],
    'unmet verdicts first, then the rest in order',
  );
  t.same(
    checks.map((c) => c.attrs['class']),
    ['check fail', 'check fail', 'check fail', 'check fail', 'check ok', 'check ok', 'check info'],
  );
  t.same(
    new Set(checks.map((c) => c.attrs['data-check'])),
    new Set(run.verdicts.map((v) => v.id)),
    'every verdict is present',
  );
  const dup = checks[3]!;
  t.match(dup.text, 'CNI refused a duplicate IP allocation: 172.26.64.2 was already allocated to 5b0ffebc');
  t.match(dup.text, 'pre-run hook "network" failed', 'evidence is in the collapsible block, quotes decoded back');
  t.ok(
    all(dup, (e) => e.tag === 'a').some(
      (a) => a.attrs['href'] === 'reports/r-20261202-1136-e5/client-nomad-journal.log',
    ),
    'artifact of the check linked from it',
  );
  t.match(checks[0]!.text, 'caused by: no-duplicate-ip');

  const svgs = all(byId(doc, 'timeline'), (e) => e.tag === 'svg');
  t.equal(svgs.length, 2, 'whole run and around the reboot');
  for (const svg of svgs) {
    const names = all(svg, (e) => e.attrs['class'] === 'lane-name').map((e) => e.text);
    t.same(names, ['host', 'node', 'alloc', 'steps'], 'the four lanes');
    t.same(
      all(svg, (e) => e.attrs['class'] === 'down-label').map((e) => e.text),
      ['host down 45.8s'],
      'host-down span shaded and labelled',
    );
  }
  const whole = svgs[0]!;
  t.equal(
    all(whole, (e) => e.tag === 'rect' && e.attrs['class'] === 'bar').length,
    run.steps.length,
    'one bar per step',
  );
  t.ok(
    all(whole, (e) => e.tag === 'text').some((e) => e.text === 'checks at the end'),
    'a verdict column at the end',
  );
  const end = all(whole, (e) => e.tag === 'text' && /^(ok|FAIL|skip) /.test(e.text));
  t.equal(end.length, run.verdicts.length, 'every verdict placed at the end of the run');
  const zoomed = all(svgs[1]!, (e) => e.tag === 'circle').map((c) => c.text);
  t.ok(
    zoomed.some((x) => /Setup Failure — alloc 5b0ffebc: .*duplicate allocation is not allowed/.test(x)),
    'the zoom shows the Setup Failure mark with its message',
  );
  t.notOk(
    zoomed.some((x) => /Node registered/.test(x)),
    'the zoom leaves out what happened long before the reboot',
  );

  const rows = all(byId(doc, 'events'), (e) => e.tag === 'tr' && e.attrs['data-lane'] !== undefined);
  t.equal(rows.length, run.timeline.length + run.steps.length);
  const cells = rows.map((r) => r.kids.filter((k) => k.tag === 'td').map((k) => k.text));
  const times = cells.map((c) => c[0]!);
  t.same(
    times,
    [...times].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })),
    'rows in time order',
  );
  t.same(cells[0]!.slice(0, 4), ['+0:00.000', '11:36:00.000', 'steps', 'bring up the server and client VMs']);
  const order = [
    'graceful reboot requested',
    'SSH back with a new boot_id',
    'Failed Restoring Task',
    'Setup Failure',
    'node status ready',
  ].map((l) => cells.findIndex((c) => c[3] === l));
  t.same(
    order,
    [...order].sort((a, b) => a - b),
    'reboot requested, SSH back, Failed Restoring Task, Setup Failure, node ready',
  );
  t.notOk(order.includes(-1), 'all of them are rows');
  const setup = cells.find((c) => c[3] === 'Setup Failure')!;
  t.same(setup.slice(0, 3), ['+3:30.177', '11:39:30.177', 'alloc']);
  t.match(
    setup[4],
    /172\.26\.64\.2 has been allocated to 5b0ffebc-62f3-ee48-8c2d-f20e83d725f8, duplicate allocation is not allowed$/,
  );
  t.equal(rows.find((r) => r.text.includes('Setup Failure'))!.attrs['class'], 'fail');
});

t.test('escaping: run content cannot add markup, scripts or links', async (t) => {
  const run = rebootRun();
  const evil = `<script>document.title='pwned'</script>`;
  run.suiteName = `</title><script>alert(1)</script>`;
  run.verdicts[0] = {
    ...run.verdicts[0]!,
    message: evil,
    evidence: [`a "quoted" & <b>bold</b> 'x'`, '\u001b[31mred\u001b[0m'],
  };
  run.timeline.push({
    atMs: run.startedAtMs + 1000,
    lane: 'alloc',
    label: '<img src=x onerror=alert(1)>',
    detail: `"><svg onload=alert(1)>`,
    severity: 'fail',
  });
  run.properties[`k"<`] = `v&<i>`;
  run.artifacts.push({ name: '<a>', path: 'javascript:alert(1)' }, { name: 'up', path: '"><script>x</script>' });
  run.steps[0]!.name = `step <u>one</u>`;
  const html = renderHtml(run);
  const doc = dom(html);
  t.notMatch(html, /<script/i, 'no script element anywhere');
  t.notMatch(html, /<(img|svg|b|i|u|a)\b[^>]*\son\w+=/i, 'no element with an event handler');
  t.match(html, '&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;');
  t.equal(all(doc, (e) => e.tag === 'script' || e.tag === 'img').length, 0);
  t.equal(
    all(doc, (e) => (e.tag === 'b' && e.text === 'bold') || (e.tag === 'u' && e.text === 'one')).length,
    0,
    'markup in content stays text',
  );
  t.match(
    one(doc, (e) => e.attrs['data-check'] === run.verdicts[0]!.id, 'check').text,
    `a "quoted" & <b>bold</b> 'x'`,
    'text survives as text',
  );
  t.notMatch(html, '\u001b', 'ANSI escapes dropped');
  const hrefs = all(byId(doc, 'artifacts'), (e) => e.tag === 'a').map((a) => a.attrs['href']!);
  t.ok(hrefs.includes('javascript%3Aalert(1)'), 'a scheme-looking path becomes a relative file link');
  t.ok(
    hrefs.every((h) => !/^[a-z]+:/i.test(h)),
    'no link has a URL scheme',
  );
  t.match(
    html,
    `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`,
    'a CSP forbids scripts and remote loads',
  );
  t.notMatch(html, /\b(src|href)="(https?:)?\/\//, 'no external resources');
});

t.test('recorded runs without a timeline (old JSON), with errors, and a passing reproduction', async (t) => {
  const [a, b, c, d] = loadRuns() as [RunRecord, RunRecord, RunRecord, RunRecord];
  for (const r of [a, b, c, d])
    t.equal((r as Partial<RunRecord>).timeline, undefined, 'the fixture predates timelines');

  const pa = dom(renderHtml(a));
  t.equal(byId(pa, 'verdict').text, 'PASS');
  t.match(
    all(pa, (e) => e.attrs['data-label'] === 'expected failure').map((e) => e.attrs['data-check']),
    ['alloc-restored', 'task-restarted', 'http-reachable', 'no-duplicate-ip'],
  );
  t.match(byId(pa, 'timeline').text, 'No timeline events were recorded');
  t.same(
    all(byId(pa, 'events'), (e) => e.tag === 'tr' && e.attrs['data-lane'] !== undefined).length,
    a.steps.length,
    'steps still make rows',
  );
  t.same(
    all(byId(pa, 'artifacts'), (e) => e.tag === 'a').map((x) => x.attrs['href']),
    a.artifacts.map((x) => x.path),
    'links default to the recorded paths',
  );

  const pc = dom(renderHtml(c));
  t.equal(byId(pc, 'verdict').text, 'ERROR');
  t.match(
    one(pc, (e) => e.attrs['data-error'] === 'run', 'error box').text,
    'in step “bring up lab”: command exited 1: vagrant up --provider libvirt client',
  );
  t.match(byId(pc, 'checks').text, /ERROR in step [\s\S]*No checks ran\.$/, 'the error, then a note that no check ran');
  t.equal(byId(dom(renderHtml(d)), 'verdict').text, 'ERROR');

  // An error after the checks sits between the unmet and the met verdicts.
  const withError: RunRecord = { ...b, error: { message: 'destroy failed', step: 'teardown' } };
  const order = all(
    byId(dom(renderHtml(withError)), 'checks'),
    (e) => e.attrs['data-check'] !== undefined || e.attrs['data-error'] !== undefined,
  ).map((e) => e.attrs['data-check'] ?? `error:${e.attrs['data-error']}`);
  t.same(order, [
    'alloc-restored',
    'task-restarted',
    'http-reachable',
    'unique-ips',
    'error:run',
    'client-rebooted',
    'node-back',
    'no-duplicate-ip',
  ]);
});

t.test('layout helpers', async (t) => {
  const ev = (atMs: number, label: string): TimelineEvent => ({ atMs, lane: 'host', label });
  t.same(hostDownSpans([ev(10, 'graceful reboot requested'), ev(50, 'SSH back with a new boot_id')], 100), [
    { from: 10, to: 50, open: false },
  ]);
  t.same(
    hostDownSpans([ev(10, 'hard reboot requested')], 100),
    [{ from: 10, to: 100, open: true }],
    'SSH never back: open until the end',
  );
  t.same(hostDownSpans([ev(50, 'SSH back with a new boot_id')], 100), [], 'a back without a request is no span');
  t.equal(rebootWindow([], [], { from: 0, to: 1000 }), undefined, 'no reboot, no zoom');
  t.same(rebootWindow([{ from: 100_000, to: 140_000, open: false }], [], { from: 0, to: 600_000 }), {
    from: 94_000,
    to: 146_000,
  });
  t.equal(
    rebootWindow([{ from: 10_000, to: 590_000, open: false }], [], { from: 0, to: 600_000 }),
    undefined,
    'a reboot filling the run needs no zoom',
  );

  t.same(
    packLabels(
      [
        { x: 0, width: 50 },
        { x: 30, width: 50 },
        { x: 100, width: 20 },
      ],
      1000,
      4,
    ),
    [
      { row: 0, anchor: 'start' },
      { row: 1, anchor: 'start' },
      { row: 0, anchor: 'start' },
    ],
  );
  t.same(
    packLabels(
      [
        { x: 0, width: 50 },
        { x: 10, width: 50 },
      ],
      1000,
      1,
    ),
    [
      { row: 0, anchor: 'start' },
      { row: -1, anchor: 'start' },
    ],
    'no room: hidden (the table has it)',
  );
  t.same(
    packLabels([{ x: 990, width: 50 }], 1000, 1),
    [{ row: 0, anchor: 'end' }],
    'ends at its mark near the right edge',
  );

  t.same(
    ticks({ from: 0, to: 225_000 }, 0).map((x) => x.at),
    [0, 30_000, 60_000, 90_000, 120_000, 150_000, 180_000, 210_000],
  );
  t.same(
    ticks({ from: 151_000, to: 223_000 }, 0).map((x) => x.at),
    [160_000, 170_000, 180_000, 190_000, 200_000, 210_000, 220_000],
    'offsets from the run start',
  );
  t.equal(relTime(210_177), '+3:30.177');
  t.equal(relTime(-1500, false), '-0:01');
  t.equal(relTime(3_723_004), '+1:02:03.004');
  t.equal(fileHref('a b/c#d/../e?.json'), 'a%20b/c%23d/../e%3F.json');
});

t.test('the HTML reporter: one redacted page per run, links relative to the page', async (t) => {
  const dir = t.testdir();
  const token = 'b1c2d3e4-0000-4a4a-9f9f-secrettoken1';
  const run = rebootRun();
  run.verdicts[0]!.evidence.push(`curl -H 'X-Nomad-Token: ${token}' http://127.0.0.1:4646/v1/allocations`);
  run.properties['nomad.token.hint'] = token;
  run.timeline.push({ atMs: run.startedAtMs, lane: 'step', label: `NOMAD_TOKEN=${token}` });
  run.artifacts = [
    { name: 'alloc-after.json', path: join(dir, run.runId, 'alloc-after.json') },
    { name: 'elsewhere.log', path: join(dir, 'other', 'x.log') },
  ];
  const other: RunRecord = { ...loadRuns()[2]!, runId: '../escape' };
  const { written } = await writeSessionReports(
    sessionOf([run, other]),
    [htmlReporter],
    contextIn(dir, { secrets: [token] }),
  );
  const paths = written.map((f) => f.path);
  t.same(
    paths,
    [join(dir, run.runId, 'report.html'), join(dir, '.._escape', 'report.html')],
    'one page per run, never outside dir',
  );
  const html = readFileSync(paths[0]!, 'utf8');
  t.notMatch(html, token, 'the token appears nowhere');
  t.notMatch(html, 'secrettoken1');
  t.match(html, '[REDACTED]');
  t.same(
    all(byId(dom(html), 'artifacts'), (e) => e.tag === 'a').map((a) => a.attrs['href']),
    ['alloc-after.json', '../other/x.log'],
  );
  t.equal(byId(dom(readFileSync(paths[1]!, 'utf8')), 'verdict').text, 'ERROR');
  t.equal(runDirName('..'), 'run2');
  t.equal(runDirName('r-1a2b'), 'r-1a2b');
});

t.test('the header says how the run got its lab: warm, the snapshot key and its age', async (t) => {
  const run = rebootRun();
  run.properties = {
    ...run.properties,
    'lab.warm': 'yes',
    'lab.snapshot.key': 'f7804802875d649f',
    'lab.snapshot.age_s': '123',
  };
  const facts = Object.fromEntries(
    all(dom(renderHtml(run)), (e) => e.tag === 'dd').map((d) => [d.attrs['data-key'], d.text]),
  );
  t.match(facts, { 'lab.warm': 'yes', 'lab.snapshot.key': 'f7804802875d649f', 'lab.snapshot.age_s': '123' });
  const cold = rebootRun();
  const none = Object.fromEntries(
    all(dom(renderHtml(cold)), (e) => e.tag === 'dd').map((d) => [d.attrs['data-key'], d.text]),
  );
  t.notOk('lab.warm' in none, 'a record without the properties shows no such facts');
});

t.test('the header of a run with several allocs sums up all of them, not the first one', async (t) => {
  const run = rebootRun();
  run.properties = {
    ...run.properties,
    'alloc.id': '5b0ffebc-62f3-ee48-8c2d-f20e83d725f8',
    'alloc.outcome': 'restored',
    'allocs.count': '3',
    'allocs.outcomes': 'web.web[0]=restored web.web[1]=replaced web.web[2]=restored',
    'allocs.addresses': 'web.web[0]=172.26.64.2->172.26.64.2 web.web[1]=172.26.64.3->172.26.64.5 web.web[2]=?->?',
  };
  const dds = all(dom(renderHtml(run)), (e) => e.tag === 'dd');
  const facts = Object.fromEntries(dds.map((d) => [d.attrs['data-key'], d.text]));
  t.match(facts, {
    'allocs.outcomes': '3: 2 restored, 1 replaced',
    'allocs.addresses': '1 of 3 changed, 1 not known',
  });
  for (const k of ['alloc.id', 'alloc.outcome', 'alloc.address.before', 'alloc.address.after'])
    t.notOk(k in facts, `no one-alloc fact ${k} in the header of a 3-alloc run`);
  const labels = all(dom(renderHtml(run)), (e) => e.tag === 'dt').map((d) => d.text);
  t.ok(labels.indexOf('allocs') > labels.indexOf('boot_id after'), 'where the alloc facts were');

  const one = Object.fromEntries(
    all(dom(renderHtml(rebootRun())), (e) => e.tag === 'dd').map((d) => [d.attrs['data-key'], d.text]),
  );
  t.match(
    one,
    { 'alloc.id': '5b0ffebc-62f3-ee48-8c2d-f20e83d725f8', 'alloc.outcome': 'failed' },
    'one alloc: as before',
  );
  t.notOk('allocs.outcomes' in one);
});
