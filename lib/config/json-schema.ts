// Pure: the JSON Schema of harness.yaml, made from the one key table (lib/config/table.ts), so an editor's or CI's
// check of a file and the CLI's own cannot drift apart. `npm run docs` writes it to schemas/harness.schema.json.
import { schemaOfParser, type Field, type JsonSchema } from './fields.js';

/** The draft the schemas are written in (what editors' YAML servers and ajv's default take). */
export const SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';

const EXPECTATION: JsonSchema = { type: 'string', enum: ['pass', 'fail'] };

/** `expect: fail`, or `expect: {scenario: fail, checks: {<check>: fail}}` (which checks a scenario has is the CLI's). */
const EXPECT: JsonSchema = {
  description: 'what the run is expected to do: pass (default) or fail, as a whole or per check',
  anyOf: [
    EXPECTATION,
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        scenario: EXPECTATION,
        checks: {
          type: 'object',
          propertyNames: { pattern: '^[a-z0-9-]+$' },
          additionalProperties: EXPECTATION,
        },
      },
    },
  ],
};

/** One key's schema: its parser's, with the key's doc line (and which key an older name stands for). */
function leafOf(f: Field): JsonSchema {
  const own = schemaOfParser(f.parse) ?? {};
  const flag = f.flag ? ` (--${f.flag}${f.env ? `, ${f.env}` : ''})` : f.env ? ` (${f.env})` : '';
  const alias = f.aliasOf ? ` Older name of ${f.aliasOf}.` : '';
  return { ...own, description: `${f.doc}${flag}.${alias}` };
}

interface Node {
  leaf?: JsonSchema;
  kids: Map<string, Node>;
}

function objectOf(node: Node): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries([...node.kids].map(([k, n]) => [k, n.leaf ?? objectOf(n)])),
  };
}

/** The keys of `fields` as nested mappings (a dotted key is a section path), every mapping closed to other keys. */
export function configObjectSchema(fields: readonly Field[]): JsonSchema {
  const root: Node = { kids: new Map() };
  for (const f of fields) {
    let node = root;
    for (const part of f.yaml.split('.')) {
      const next = node.kids.get(part) ?? { kids: new Map() };
      node.kids.set(part, next);
      node = next;
    }
    node.leaf = leafOf(f);
  }
  root.kids.set('expect', { leaf: EXPECT, kids: new Map() });
  return objectOf(root);
}

/** The whole schema of harness.yaml. */
export function harnessSchema(fields: readonly Field[]): JsonSchema {
  return {
    $schema: SCHEMA_DRAFT,
    title: 'nomad-reboot-harness harness.yaml',
    description:
      "Settings of reboot-harness (docs/config.md). Made from the CLI's key table by `npm run docs`; the CLI also " +
      'takes numbers and booleans written as strings, and checks ranges of durations and the checks a scenario has.',
    ...configObjectSchema(fields),
  };
}

/** A schema as the file holds it: two-space JSON and a final newline. */
export function schemaText(schema: JsonSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
