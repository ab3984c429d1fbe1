// Pure: the JSON Schema of a matrix file (docs/matrix.md), from the matrix parser's own lists and harness.yaml's key
// table for `defaults`. `npm run docs` writes it to schemas/matrix.schema.json.
import type { Field, JsonSchema } from '../config/fields.js';
import { configObjectSchema, SCHEMA_DRAFT } from '../config/json-schema.js';
import { TASK_DRIVERS } from '../model/kinds.js';
import { FAULTS } from '../faults/registry.js';
import { MAX_CLIENTS, SERVER_COUNTS } from '../model/topology.js';
import { type AXES, MAX_PARALLEL, NAME, type NOMAD_KEYS, type TOP } from './spec.js';

const NON_BLANK: JsonSchema = { type: 'string', pattern: '\\S' };
/** A count as a number or as its digits (cell names keep it as written). */
const counts = (values: readonly number[]): JsonSchema => ({ enum: [...values, ...values.map(String)] });
const list = (items: JsonSchema, description: string): JsonSchema => ({
  type: 'array',
  minItems: 1,
  items,
  description,
});
const EXPECT_ITEM: JsonSchema = { type: 'string', pattern: '^\\s*(?:[a-z0-9-]+=)?(?:pass|fail)\\s*$' };

const NOMAD_ENTRY: Record<(typeof NOMAD_KEYS)[number], JsonSchema> = {
  name: {
    description: 'a short name, part of the cell name (letters, digits, . _ + -)',
    anyOf: [{ type: 'string', pattern: NAME.source }, { type: 'number' }],
  },
  binary: {
    ...NON_BLANK,
    description: 'the build: a path (relative to the matrix file), release version or git:<dir>',
  },
  expect: {
    description: 'what this build is expected to do: "fail", or "<check>=fail|pass" (one or a list)',
    anyOf: [EXPECT_ITEM, { type: 'array', items: EXPECT_ITEM }],
  },
  upgrade_to: { ...NON_BLANK, description: 'the build the client is upgraded to (upgrade-in-place)' },
};

const AXIS: Record<(typeof AXES)[number], JsonSchema> = {
  nomad: list(
    { type: 'object', additionalProperties: false, required: ['name', 'binary'], properties: NOMAD_ENTRY },
    'the Nomad builds, each {name, binary} and optionally upgrade_to and expect',
  ),
  reboot: list({ type: 'string', enum: [...FAULTS.names] }, 'fault kinds (docs/faults.md)'),
  box: list(NON_BLANK, 'Vagrant boxes'),
  driver: list({ type: 'string', enum: [...TASK_DRIVERS] }, 'task drivers of the shipped job'),
  servers: list(counts(SERVER_COUNTS), 'how many Nomad servers'),
  clients: list(counts(Array.from({ length: MAX_CLIENTS }, (_, i) => i + 1)), 'how many Nomad clients'),
};

/** The whole schema of a matrix file; `defaults` holds harness.yaml keys (the same schema as harness.yaml's). */
export function matrixSchema(fields: readonly Field[]): JsonSchema {
  const top: Record<(typeof TOP)[number], JsonSchema> = {
    scenario: {
      description: 'the scenario to run in every cell, or a list of them',
      anyOf: [NON_BLANK, { type: 'array', minItems: 1, uniqueItems: true, items: NON_BLANK }],
    },
    axes: {
      description: 'what varies between cells: each axis a non-empty list of values',
      type: 'object',
      additionalProperties: false,
      properties: AXIS,
    },
    defaults: { description: 'harness.yaml keys shared by every cell', ...configObjectSchema(fields) },
    parallel: { type: 'integer', minimum: 1, maximum: MAX_PARALLEL, description: 'cells run at once' },
    memory_budget_mb: {
      type: 'integer',
      minimum: 1024,
      maximum: 1 << 22,
      description: 'memory the cells running at once may use together (MiB)',
    },
    retry_infra_errors: { type: 'boolean', description: 'retry a cell once after an infrastructure error' },
  };
  return {
    $schema: SCHEMA_DRAFT,
    title: 'nomad-reboot-harness matrix file',
    description: "A matrix of runs (docs/matrix.md). Made by `npm run docs` from the CLI's own tables.",
    type: 'object',
    additionalProperties: false,
    required: ['scenario', 'axes'],
    properties: top,
  };
}
