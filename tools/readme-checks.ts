// `npm run docs:checks`: rewrite the README's check tables from the check definitions (one definition per check).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCENARIOS } from '../lib/cli/scenarios.js';
import { withCheckTables } from '../lib/report/check-table.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(readme, 'utf8');
const after = withCheckTables(before, SCENARIOS);
if (after !== before) writeFileSync(readme, after);
process.stdout.write(after === before ? 'README check tables are current\n' : 'README check tables rewritten\n');
