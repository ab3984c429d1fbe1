// docs/known-issues.md is written from the table (npm run docs) and must be current: the page a reader trusts is the
// table the labeller uses.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { KNOWN_ISSUES } from '../../lib/known-issues/table.js';
import { renderKnownIssuesDoc } from '../../lib/known-issues/doc.js';

t.test('docs/known-issues.md is the table rendered (run `npm run docs` after changing a row)', async (t) => {
  const doc = readFileSync(new URL('../../docs/known-issues.md', import.meta.url), 'utf8');
  t.equal(doc, renderKnownIssuesDoc(KNOWN_ISSUES));
});

t.test('each row: its link, checks, first fixed release and source', async (t) => {
  const doc = renderKnownIssuesDoc(KNOWN_ISSUES);
  for (const r of KNOWN_ISSUES) {
    const line = doc.split('\n').find((l) => l.startsWith(`| [${r.id}](${r.url}) |`));
    t.ok(line, `${r.id} has a row`);
    for (const c of r.checks) t.match(line, `\`${c}\``, `${r.id} names ${c}`);
    for (const f of r.fixes) t.match(line, `https://github.com/hashicorp/nomad/commit/${f.commit}`);
  }
  t.match(
    doc,
    /\| \[GH-28345\]\([^)]+\) \| [^|]+ \| `task-dirs` \| faults `graceful`, `hard`, `panic`, `power-off`; reproduces always \| 2\.0\.5 \|/,
  );
});
