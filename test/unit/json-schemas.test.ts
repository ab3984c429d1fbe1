// The JSON Schemas of harness.yaml and the matrix file (schemas/): current with the key table, valid for ajv, taking
// every shipped example, and agreeing with the CLI's own validator: each bad file rejected by both, each good one
// accepted by both.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { FIELDS } from '../../lib/config/table.js';
import { harnessSchema, schemaText } from '../../lib/config/json-schema.js';
import { schemaOfParser } from '../../lib/config/fields.js';
import { resolveConfig } from '../../lib/config/validate.js';
import { matrixSchema } from '../../lib/matrix/json-schema.js';
import { AXES, NOMAD_KEYS, parseMatrix, TOP } from '../../lib/matrix/spec.js';
import { expectableIds } from '../../lib/checks/expect-ids.js';
import { SCENARIOS } from '../../lib/cli/scenarios.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const KNOWN = Object.fromEntries(SCENARIOS.map((s) => [s.name, expectableIds(s.checks)]));
const CHECKS = [...new Set(Object.values(KNOWN).flat())];

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const harness: ValidateFunction = ajv.compile(JSON.parse(read('schemas/harness.schema.json')));
const matrix: ValidateFunction = ajv.compile(JSON.parse(read('schemas/matrix.schema.json')));

const cliHarness = (doc: unknown) =>
  resolveConfig({ file: doc, env: {}, flags: {}, knownChecks: CHECKS, scenario: 'bridge-exec-reboot' }).ok;
const cliMatrix = (doc: unknown) => parseMatrix(doc, 'm.yaml', KNOWN).ok;
const errorsOf = (v: ValidateFunction) => JSON.stringify(v.errors);

t.test('the schemas are what `npm run docs` makes from the key table now', async (t) => {
  t.equal(read('schemas/harness.schema.json'), schemaText(harnessSchema(FIELDS)), 'run npm run docs');
  t.equal(read('schemas/matrix.schema.json'), schemaText(matrixSchema(FIELDS)), 'run npm run docs');
});

t.test('every key of the table has a schema of what its parser takes', async (t) => {
  t.same(
    FIELDS.filter((f) => !schemaOfParser(f.parse)).map((f) => f.yaml),
    [],
    'give the parser a schema (described() in lib/config/fields.ts)',
  );
  const m = JSON.parse(read('schemas/matrix.schema.json'));
  t.same(Object.keys(m.properties), TOP, "the matrix file's keys");
  t.same(Object.keys(m.properties.axes.properties), [...AXES], 'its axes');
  t.same(Object.keys(m.properties.axes.properties.nomad.items.properties), NOMAD_KEYS, 'a nomad entry');
});

/** Every YAML block of a Markdown file. */
const yamlBlocks = (md: string): string[] => [...md.matchAll(/```yaml\n([^]*?)```/g)].map((m) => m[1]!);

t.test('every shipped example and documented file is valid for the schema and the CLI', async (t) => {
  const examples = readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    /\.ya?ml$/.test(f),
  );
  const harnessFiles: [string, string][] = [
    ...examples.filter((f) => f.endsWith('harness.yaml')).map((f): [string, string] => [f, read(`examples/${f}`)]),
    ...['README.md', 'docs/config.md', 'docs/existing-hosts.md'].flatMap((f) =>
      yamlBlocks(read(f)).map((y, i): [string, string] => [`${f} block ${i + 1}`, y]),
    ),
  ];
  const matrixFiles: [string, string][] = [
    ...examples
      .filter((f) => !f.endsWith('harness.yaml') && !f.includes('github') && !f.includes('gitlab'))
      .map((f): [string, string] => [f, read(`examples/${f}`)]),
    ...yamlBlocks(read('docs/matrix.md')).map((y, i): [string, string] => [`docs/matrix.md block ${i + 1}`, y]),
  ];
  t.ok(harnessFiles.length >= 4 && matrixFiles.length >= 2, `${harnessFiles.length} + ${matrixFiles.length} files`);
  for (const [name, text] of harnessFiles) {
    const doc = parseYaml(text);
    t.ok(harness(doc), `${name}: schema ${errorsOf(harness)}`);
    t.ok(cliHarness(doc), `${name}: CLI`);
  }
  for (const [name, text] of matrixFiles) {
    const doc = parseYaml(text);
    t.ok(matrix(doc), `${name}: schema ${errorsOf(matrix)}`);
    t.ok(cliMatrix(doc), `${name}: CLI`);
  }
  t.match(read('examples/harness.yaml'), /^# yaml-language-server: \$schema=\.\.\/schemas\/harness\.schema\.json$/m);
});

/** Bad harness.yaml files: each is wrong in one way the CLI names. */
const BAD_HARNESS: Record<string, string> = {
  'unknown top key': 'nomad_bulid: 1.9.7',
  'unknown key in a section': 'lab:\n  memroy_mb: 1024',
  'a section that is not a mapping': 'lab: 1024',
  'memory below the floor': 'lab:\n  memory_mb: 256',
  'memory not a number': 'lab:\n  memory_mb: lots',
  'cpus not whole': 'lab:\n  cpus: 1.5',
  'a provider it does not know': 'lab:\n  provider: docker',
  'server count not odd': 'lab:\n  servers: 2',
  'too many clients': 'lab:\n  clients: 99',
  'subnet not a /24': 'lab:\n  private_subnet: 10.1.0.0/16',
  'netns with a space': 'lab:\n  netns: "my ns"',
  'reboot kind': 'reboot:\n  kind: gentle',
  'a duration without unit': 'nomad:\n  heartbeat_grace: "90"',
  'a timeout in words': 'timeout: forever',
  'artifacts when': 'reports:\n  artifacts: sometimes',
  'a bool in words': 'keep: perhaps',
  'a releases URL over ftp': 'builds:\n  releases_url: ftp://mirror.example.com/',
  'a releases URL with credentials': 'builds:\n  releases_url: https://user:secret@mirror.example.com/',
  'an empty build': 'nomad_build: "  "',
  'expect a word': 'expect: maybe',
  'expect a check that is not a word': 'expect:\n  checks:\n    no-duplicate-ip: sometimes',
  'expect an unknown key': 'expect:\n  scenarios: fail',
  'job vars a list': 'job:\n  vars: [1, 2]',
  'a host list entry with a typo':
    'lab:\n  provider: ssh\n  hosts:\n    servers: [{address: a, user: u, key: k, prot: 22}]',
  'a host port out of range': 'lab:\n  hosts:\n    client:\n      port: 70000',
  'a jump host with a path': 'lab:\n  hosts:\n    client:\n      jump: "admin@bastion/x"',
  'a hard reset command empty': 'lab:\n  hard_reset_command: []',
  'a target that is no machine': 'reboot:\n  target: workers',
  'a probe interval of no unit': 'reboot:\n  probe_interval: fast',
  'a file that is a list': '- lab\n- reboot',
};

/** Good files the CLI takes, in the forms people write. */
const GOOD_HARNESS: Record<string, string> = {
  empty: '{}',
  'a release and a job': 'nomad_build: 1.9.7\njob:\n  file: j.nomad.hcl\n  vars: {count: 3, image: "web:1"}',
  durations:
    'timeout: 45m\nnomad:\n  heartbeat_grace: 1h30m\n  retry_for: 0\nreboot:\n  settle_quiet: 600\n  off_for: 30s',
  'an ssh lab':
    'lab:\n  provider: ssh\n  hosts:\n    servers: [{address: 10.0.0.5, user: admin, key: ~/.ssh/id}]\n    clients: [{address: 10.0.0.6, user: admin, key: ~/.ssh/id, port: 2222, jump: "ops@bastion:22"}]\n  hard_reset_command: [ipmitool, power, reset]',
  'a target and expectations':
    'reboot:\n  target: leader\n  kind: partition\nexpect:\n  scenario: pass\n  checks: {no-leaks: fail}',
  'expect as a word': 'expect: fail',
  'the host network': 'lab:\n  netns: ""',
};

/** Each bad file rejected by the schema and the CLI, each good one taken by both. */
function agree(
  t: Test,
  schema: ValidateFunction,
  cli: (doc: unknown) => boolean,
  files: { bad: Record<string, string>; good: Record<string, string> },
): void {
  for (const [what, text] of Object.entries(files.bad)) {
    const doc = parseYaml(text);
    t.notOk(schema(doc), `${what}: the schema rejects it`);
    t.notOk(cli(doc), `${what}: the CLI rejects it`);
  }
  for (const [what, text] of Object.entries(files.good)) {
    const doc = parseYaml(text);
    t.ok(schema(doc), `${what}: the schema takes it ${errorsOf(schema)}`);
    t.ok(cli(doc), `${what}: the CLI takes it`);
  }
}

t.test('bad harness.yaml files: each rejected by the schema and by the CLI; good ones taken by both', async (t) => {
  agree(t, harness, cliHarness, { bad: BAD_HARNESS, good: GOOD_HARNESS });
});

const M = 'scenario: bridge-exec-reboot\naxes:\n  nomad: [{name: "1.9.7", binary: ./nomad}]\n';
const BAD_MATRIX: Record<string, string> = {
  'no axes': 'scenario: bridge-exec-reboot',
  'no scenario': 'axes:\n  reboot: [hard]',
  'an unknown top key': `${M}axis: {}`,
  'an unknown axis': `${M}  kernel: [6.1]`,
  'an empty axis': `${M}  reboot: []`,
  'a reboot kind it does not know': `${M}  reboot: [gentle]`,
  'a server count of two': `${M}  servers: [2]`,
  'nine clients': `${M}  clients: [9]`,
  'a driver it does not run': `${M}  driver: [podman]`,
  'a nomad entry without binary': 'scenario: bridge-exec-reboot\naxes:\n  nomad: [{name: a}]',
  'a nomad entry with a typo': 'scenario: bridge-exec-reboot\naxes:\n  nomad: [{name: a, binary: b, upgrade: c}]',
  'a nomad name with a slash': 'scenario: bridge-exec-reboot\naxes:\n  nomad: [{name: "a/b", binary: b}]',
  'an expectation in words': 'scenario: bridge-exec-reboot\naxes:\n  nomad: [{name: a, binary: b, expect: maybe}]',
  'parallel zero': `${M}parallel: 0`,
  'parallel too many': `${M}parallel: 17`,
  'a memory budget too small': `${M}memory_budget_mb: 10`,
  'retry in words': `${M}retry_infra_errors: often`,
  'a default key it does not know': `${M}defaults:\n  lab:\n    memroy_mb: 1024`,
  'a default value out of range': `${M}defaults:\n  lab:\n    memory_mb: 100`,
  'defaults a list': `${M}defaults: [a]`,
  'a scenario list empty': 'scenario: []\naxes:\n  reboot: [hard]',
};
const GOOD_MATRIX: Record<string, string> = {
  minimal: M,
  'counts as written': `${M}  servers: [1, "3"]\n  clients: [1, 2]\n  reboot: [graceful, hard, partition]`,
  'expectations and defaults': `scenario: [bridge-exec-reboot]\naxes:\n  nomad:\n    - {name: 1.9.3, binary: ./a, expect: ["no-duplicate-ip=fail"]}\n    - {name: b, binary: ./b, expect: fail}\ndefaults:\n  timeout: 45m\n  lab: {memory_mb: 1024}\nparallel: 2\nmemory_budget_mb: 8192\nretry_infra_errors: false`,
};

t.test('bad matrix files: each rejected by the schema and by the CLI; good ones taken by both', async (t) => {
  agree(t, matrix, cliMatrix, { bad: BAD_MATRIX, good: GOOD_MATRIX });
});

t.test('the README names the schemas with the line the YAML language server reads', async (t) => {
  const readme = read('README.md');
  t.match(readme, /^# yaml-language-server: \$schema=schemas\/harness\.schema\.json$/m);
  t.match(readme, /\(schemas\/matrix\.schema\.json\)/);
  const pkg = JSON.parse(read('package.json'));
  t.equal(pkg.devDependencies.ajv, '8.20.0', 'ajv pinned');
  t.ok(pkg.exports['./schemas/harness.schema.json'] && pkg.exports['./schemas/matrix.schema.json'], 'exported');
});
