// `npm run docs`: rewrite the generated tables of docs/ from the code's own tables: each scenario's checks (from the
// check registry, via the scenarios' lists) in docs/checks.md, every configuration key in docs/config.md, every
// command's options (the table --help prints) in docs/cli.md, every fault kind (the fault registry) in docs/faults.md,
// the known-issue table in docs/known-issues.md; and the JSON
// Schemas of harness.yaml and the matrix file in schemas/ from the same key table.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCENARIOS } from '../lib/cli/scenarios.js';
import { withCheckTables } from '../lib/report/check-table.js';
import { renderConfigTable, withConfigTable } from '../lib/config/doc-table.js';
import { FIELDS } from '../lib/config/table.js';
import { DEFAULTS } from '../lib/config/schema.js';
import { harnessSchema, schemaText } from '../lib/config/json-schema.js';
import { matrixSchema } from '../lib/matrix/json-schema.js';
import { renderCliReference } from '../lib/cli/cli-doc.js';
import { renderFaultTable, withFaultTable } from '../lib/faults/doc-table.js';
import { FAULTS } from '../lib/faults/registry.js';
import { KNOWN_ISSUES } from '../lib/known-issues/table.js';
import { renderKnownIssuesDoc } from '../lib/known-issues/doc.js';

const docs: [string, (text: string) => string][] = [
  ['../docs/checks.md', (text) => withCheckTables(text, SCENARIOS)],
  ['../docs/config.md', (text) => withConfigTable(text, renderConfigTable(FIELDS, DEFAULTS))],
  ['../docs/cli.md', () => renderCliReference()],
  ['../docs/faults.md', (text) => withFaultTable(text, renderFaultTable(FAULTS))],
  ['../docs/known-issues.md', () => renderKnownIssuesDoc(KNOWN_ISSUES)],
  ['../schemas/harness.schema.json', () => schemaText(harnessSchema(FIELDS))],
  ['../schemas/matrix.schema.json', () => schemaText(matrixSchema(FIELDS))],
];
for (const [rel, rewrite] of docs) {
  const file = fileURLToPath(new URL(rel, import.meta.url));
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const after = rewrite(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(`${rel.slice(3)}: ${after === before ? 'current' : 'rewritten'}\n`);
}
