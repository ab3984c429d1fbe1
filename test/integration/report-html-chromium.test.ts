// The HTML report in a real browser: headless Chromium loads the page from a file:// URL, we assert on the DOM it
// built (verdict, failing check first, the duplicate-IP message, lanes; hostile text stays text) and keep screenshots.
// Chromium gets only file:// URLs and flags that stop its background traffic; as root it also runs in a fresh network
// namespace (`unshare --net`: loopback only, down), so it cannot reach any network at all.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { renderHtml } from '../../lib/report/html.js';
import type { RunRecord } from '../../lib/model/run.js';
import { chromium, chromiumIsolated as isolate, chromiumMissing as missing, pngSize } from '../helpers/chromium.js';

const rebootRun = (): RunRecord =>
  JSON.parse(readFileSync(new URL('../fixtures/report/reboot-run.json', import.meta.url), 'utf8')) as RunRecord;

t.setTimeout(180_000);
t.comment(
  isolate
    ? 'chromium runs in a fresh network namespace (unshare --net)'
    : 'chromium runs with network-quiet flags only (not root: no unshare)',
);

t.test('the reboot run as Chromium renders it', { skip: missing }, async (t) => {
  t.saveFixture = true; // keep the page and the screenshots as test artifacts
  const dir = t.testdir();
  const page = join(dir, 'report.html');
  writeFileSync(page, renderHtml(rebootRun(), { hrefFor: (a) => a.name }));

  const dom = chromium(dir, page, ['--dump-dom']);
  t.match(dom, /<title>FAIL bridge-exec-reboot\[nomad=1\.9\.3\] \(r-20261202-1136-e5\)<\/title>/);
  t.match(dom, /<span class="badge failed" id="verdict">FAIL<\/span>/, 'the verdict');
  const checks = [...dom.matchAll(/<details class="check (\w+)" data-check="([^"]+)"/g)].map((m) => `${m[2]}:${m[1]}`);
  t.same(
    checks,
    [
      'alloc-restored:fail',
      'task-restarted:fail',
      'http-reachable:fail',
      'no-duplicate-ip:fail',
      'client-rebooted:ok',
      'node-back:ok',
      'unique-ips:info',
    ],
    'failing checks first',
  );
  t.match(
    dom,
    '172.26.64.2 has been allocated to 5b0ffebc-62f3-ee48-8c2d-f20e83d725f8, duplicate allocation is not allowed',
    'the duplicate-IP message',
  );
  t.match(dom, 'pre-run hook "network" failed', 'quotes come back as quotes');
  const lanes = [...dom.matchAll(/<text class="lane-name"[^>]*>(\w+)<\/text>/g)].map((m) => m[1]);
  t.same(lanes, ['host', 'node', 'alloc', 'steps', 'host', 'node', 'alloc', 'steps'], 'the four lanes, in both views');
  t.match(dom, />host down 45\.8s</, 'the host-down span');
  t.match(dom, /<tr class="fail" data-lane="alloc"><td class="t">\+3:30\.177<\/td>/, 'the Setup Failure row');
  t.match(dom, /<a href="client-nomad-journal\.log">client-nomad-journal\.log<\/a>/, 'artifact links are relative');

  const shot = join(dir, 'report.png');
  chromium(dir, page, [`--screenshot=${shot}`, '--window-size=1400,1000']);
  const size = pngSize(shot);
  t.match(size, { width: 1400, height: 1000 }, 'a 1400x1000 screenshot');
  t.ok(size.bytes > 30_000, `the screenshot has content (${size.bytes} bytes)`);
  const full = join(dir, 'report-full.png');
  chromium(dir, page, [`--screenshot=${full}`, '--window-size=1400,2600']);
  t.match(pngSize(full), { width: 1400, height: 2600 });
  t.comment(`screenshots kept: ${shot} ${full}`);
});

t.test('hostile run content stays text in the browser', { skip: missing }, async (t) => {
  const dir = t.testdir();
  const run = rebootRun();
  run.suiteName = `x</title><script>document.title='pwned'</script>`;
  run.verdicts[0] = {
    ...run.verdicts[0]!,
    message: `<script>document.body.innerHTML='pwned'</script>`,
    evidence: [`<img src=x onerror="document.title='img'">`],
  };
  run.timeline.push({ atMs: run.startedAtMs + 500, lane: 'alloc', label: `"><svg onload=alert(1)>`, severity: 'fail' });
  run.artifacts.push({ name: 'x', path: 'javascript:alert(1)' });
  const page = join(dir, 'hostile.html');
  writeFileSync(page, renderHtml(run));
  const dom = chromium(dir, page, ['--dump-dom']);
  t.notMatch(dom, /<script/i, 'no script element was created');
  t.notMatch(dom, /<img/i, 'no img element was created');
  t.notMatch(dom, /<svg onload/i, 'no svg element from content');
  t.match(
    dom,
    `<title>FAIL x&lt;/title&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;`,
    'the title is the text, unchanged',
  );
  t.match(dom, `&lt;script&gt;document.body.innerHTML='pwned'&lt;/script&gt;`);
  t.match(dom, 'href="javascript%3Aalert(1)"', 'the link is a relative file name, not a javascript: URL');
  t.match(dom, /id="verdict">FAIL</, 'the page is intact');
});
