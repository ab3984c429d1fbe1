// Every input slot of every command, derived from the registries (the commands' options that read a file, the config
// keys that name one, the commands whose words are files), given a FIFO, a device and a secret-shaped file at once:
// nineteen CLI passes found a FIFO or /dev/zero read in a slot an ad-hoc list left out (Q178, Q186, Q193, Q250), and a
// secret echoed from a file given by mistake (Q181, Q187, Q194). A slot added later is in these cases without an edit
// here; a path flag that is neither read (an input) nor in OUTPUTS below fails the first test. All command lines run in
// one process (test/helpers/cli-batch.ts) under a deadline, so the file stays within a few seconds of CPU.
import t, { type Test } from 'tap';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { optionsOf, type CliCommand } from '../../lib/cli/command.js';
import { FIELDS } from '../../lib/config/table.js';
import type { BatchCase, BatchResult } from '../helpers/cli-batch.js';

t.setTimeout(2 * 60_000);

/** The flags and keys that name what a command WRITES: left out of the input cases, and nothing else is. */
const OUTPUT_FLAGS = new Set(['junit', 'report-json', 'reports-dir', 'work-dir', 'out']);
const OUTPUT_KEYS = new Set(['reports.dir', 'reports.junit', 'reports.json', 'lab.work_dir']);
/** How a slot's value is written when it is not the path alone. */
const SPELLED: Record<string, (p: string) => string> = { source: (p) => `git:${p}` };
/** What each command needs besides its input slots to get as far as reading them. */
const NEEDS: Record<string, string[]> = {
  run: ['rolling-reboot', '--plan', '--netns', ''],
  compare: ['rolling-reboot', '--plan', '--netns', ''],
  bisect: ['rolling-reboot', '--good', 'a', '--bad', 'b', '--check', 'targets-hit', '--netns', ''],
  login: ['x', 'client'],
  destroy: ['--stale'],
  // a release, so the release key is one of its inputs (a path build uses none); its mirror answers nothing
  build: ['1.9.7', '--releases-url', 'http://127.0.0.1:9/'],
};
/** Slots one line cannot give together (bisect --resume takes nothing else): each gets a line of its own. */
const ALONE = new Set(['resume']);
/** Commands that touch the host (libvirt, the lab's namespace) once their input is read: not run here. */
const NOT_RUN = new Set(['setup', 'doctor']);

const inputOptions = (cmd: CliCommand) =>
  [...optionsOf(cmd).values()].filter((o) => o.path && !OUTPUT_FLAGS.has(o.name));
const inputKeys = FIELDS.filter((f) => f.file === 'read' && !f.aliasOf);

t.test('every path flag and file key is an input slot or a listed output', async (t) => {
  for (const cmd of COMMANDS)
    for (const o of optionsOf(cmd).values()) {
      if (!o.path) continue;
      if (OUTPUT_FLAGS.has(o.name)) t.equal(o.file, 'write', `${cmd.name} --${o.name} is an output`);
      else t.equal(o.file, 'read', `${cmd.name} --${o.name}: an input (file: 'read') or in OUTPUT_FLAGS`);
    }
  for (const f of FIELDS.filter((x) => x.file))
    t.equal(f.file, OUTPUT_KEYS.has(f.yaml) ? 'write' : 'read', `${f.yaml}: an input or in OUTPUT_KEYS`);
  t.ok(inputKeys.length >= 9, `${inputKeys.length} config keys name an input file`);
});

/** A slot given in one line: what names it in a problem (any of these), and the file given there. */
interface Slot {
  names: string[];
  file: string;
}

interface Line extends BatchCase {
  slots: Slot[];
}

/** The value at a dotted key, nested. */
function put(doc: Record<string, unknown>, yaml: string, value: unknown) {
  const keys = yaml.split('.');
  let at = doc;
  for (const k of keys.slice(0, -1)) {
    at[k] ??= {};
    at = at[k] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
}

/** A harness.yaml (or a matrix's `defaults:`) naming `make(slot)` in every key that names an input file. */
function keysDoc(make: (name: string) => string): { doc: Record<string, unknown>; slots: Slot[] } {
  const doc: Record<string, unknown> = {};
  const slots: Slot[] = [];
  for (const f of inputKeys) {
    const file = make(f.yaml.replaceAll('.', '-'));
    // a key that takes a list (job.file) is given a list; a host's key needs its host
    put(doc, f.yaml, f.multiple ? [file] : file);
    if (/^lab\.hosts\.\w+\.key$/.test(f.yaml)) {
      put(doc, f.yaml.replace(/key$/, 'address'), '127.0.0.1');
      put(doc, f.yaml.replace(/key$/, 'user'), 'root');
      put(doc, 'lab.provider', 'ssh');
    }
    slots.push({ names: [f.yaml, ...(f.flag ? [`--${f.flag}`] : [])], file });
  }
  return { doc, slots };
}

/** Every command line of the input cases, each slot given `make(slot name)`. */
function lines(dir: string, make: (name: string) => string, env: Record<string, string>): Line[] {
  const out: Line[] = [];
  const line = (name: string, args: string[], slots: Slot[], extra: Record<string, string> = {}) =>
    out.push({ name, cwd: dir, args, env: { ...env, ...extra }, slots });
  for (const cmd of COMMANDS.filter((c) => !NOT_RUN.has(c.name))) {
    const args: string[] = [];
    const slots: Slot[] = [];
    for (const o of inputOptions(cmd)) {
      const file = make(`${cmd.name}-${o.name}`);
      const given = [`--${o.name}`, (SPELLED[o.name] ?? String)(file)];
      const names = [`--${o.name}`, ...(o.field ? [o.field.yaml] : [])];
      if (ALONE.has(o.name)) line(`${cmd.name} --${o.name}`, [cmd.name, ...given], [{ names, file }]);
      else {
        args.push(...given);
        slots.push({ names, file });
      }
    }
    // the words of a command that reads files (matrix, merge, build)
    if (cmd.positionals.complete === 'files')
      for (const i of [1, 2]) {
        const file = make(`${cmd.name}-word-${i}`);
        args.push(file);
        slots.push({ names: [''], file });
      }
    if (!slots.length) continue;
    line(cmd.name, [cmd.name, ...(NEEDS[cmd.name] ?? []), ...args], slots);
    // a plan that fails on a problem of its own besides (Q178: its builds were read all the same)
    if (cmd.name === 'run') line('run, a failed plan', ['run', ...NEEDS['run']!, ...args, '--memory', '1'], slots);
  }
  const yaml = keysDoc((n) => make(`yaml-${n}`));
  writeFileSync(join(dir, 'h.yaml'), stringify(yaml.doc));
  line('run -c h.yaml', ['run', ...NEEDS['run']!, '-c', 'h.yaml'], yaml.slots);
  // the variables that name input files
  // every variable, an older name's too (NOMAD_BINARY beside NOMAD_BUILD)
  const vars = FIELDS.filter((f) => f.file === 'read' && f.env).map((f) => ({ f, file: make(`env-${f.env}`) }));
  line(
    'run, variables',
    ['run', ...NEEDS['run']!],
    vars.map(({ f, file }) => ({ names: [`--${f.flag}`, f.yaml, f.env!], file })),
    Object.fromEntries(vars.map(({ f, file }) => [f.env!, file])),
  );
  // a matrix that fails on a problem of its own, its defaults and axis entries naming inputs (Q186, Q195, Q251)
  const defaults = keysDoc((n) => make(`defaults-${n}`));
  const axis = { binary: make('axis-binary'), upgrade_to: make('axis-upgrade-to') };
  const matrix = { scenario: 'upgrade-in-place', parallel: 99, axes: { nomad: [{ name: 'a', ...axis }] } };
  writeFileSync(join(dir, 'm.yaml'), stringify({ ...matrix, defaults: defaults.doc }));
  line(
    'matrix, a failed plan',
    ['matrix', 'm.yaml', '--plan', '--netns', ''],
    [
      // the axis gives the build (nomad_build and nomad_binary are not read), and upgrade-in-place runs its own job
      ...defaults.slots.filter((s) => !['job.file', 'nomad_binary', 'nomad_build'].some((k) => s.names.includes(k))),
      { names: ['axes.nomad[0].binary'], file: axis.binary },
      { names: ['axes.nomad[0].upgrade_to'], file: axis.upgrade_to },
    ],
  );
  return out;
}

/** Runs the lines in one process under a deadline: on it, SIGTERM, which must end the process within 5 s. */
async function batch(t: Test, dir: string, cases: BatchCase[], deadlineMs = 60_000) {
  const file = join(dir, 'cases.json');
  writeFileSync(file, JSON.stringify(cases.map(({ name, cwd, args, env }) => ({ name, cwd, args, env }))));
  const compiled = import.meta.url.endsWith('.js');
  const driver = fileURLToPath(new URL(`../helpers/cli-batch.${compiled ? 'js' : 'ts'}`, import.meta.url));
  const child = spawn(process.execPath, [...(compiled ? [] : ['--import=tsx']), driver, file], {
    env: { ...process.env, CI: 'true', HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d;
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d;
  });
  // Note: the memory a device read takes is watched, not only its time: /dev/zero took 16 GB in seconds (Q186)
  let peakMb = 0;
  const watch = setInterval(() => {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readStatus(child.pid!))?.[1];
    peakMb = Math.max(peakMb, Number(rss ?? 0) / 1024);
    if (peakMb > 1024) child.kill('SIGKILL');
  }, 100);
  const ended = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  const after = (ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    return {
      late: new Promise<'late'>((res) => (timer = setTimeout(() => res('late'), ms))),
      clear: () => clearTimeout(timer),
    };
  };
  const deadline = after(deadlineMs);
  const first = await Promise.race([ended, deadline.late]);
  deadline.clear();
  let code = first === 'late' ? null : first;
  if (first === 'late') {
    child.kill('SIGTERM');
    const grace = after(5_000);
    t.not(await Promise.race([ended, grace.late]), 'late', 'the process ends within 5 s of SIGTERM');
    grace.clear();
    child.kill('SIGKILL');
    code = await ended;
  }
  clearInterval(watch);
  t.ok(first !== 'late', `every line ends by itself within ${deadlineMs / 1000} s (last lines: ${stdout.slice(-300)})`);
  t.ok(peakMb < 1024, `memory stays bounded (peak ${Math.round(peakMb)} MiB)`);
  t.equal(code, 0, `the driver ends (${stderr.slice(-500)})`);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchResult);
}

const readStatus = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};

/** The lines of the problem report (text, or the --json error document's problems as lines). */
const problemLines = (r: BatchResult) => `${r.stderr}\n${r.stdout}`.split('\n');

// Every line of both cases in one process (one start-up): FIFOs and devices in one folder, secret-shaped files in
// another. A short path: a problem shows a long value cut (a path under .tap/fixtures/), the slot's file with it.
const root = mkdtempSync(join(tmpdir(), 'slots-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

/** The FIFO and device lines. */
function fifoLines(): Line[] {
  const dir = join(root, 'fifo');
  mkdirSync(join(dir, 'work'), { recursive: true });
  const fifo = (name: string) => {
    execFileSync('mkfifo', [join(dir, `fifo-${name}`)]);
    return `fifo-${name}`;
  };
  // a device by a name of its own per slot (one path in two slots is told once, Q192)
  const zero = (name: string) => {
    symlinkSync('/dev/zero', join(dir, `zero-${name}`));
    return `zero-${name}`;
  };
  // the variables' and matrix's slots devices, the rest FIFOs
  const cases = lines(dir, (n) => (n.startsWith('env-') || n.startsWith('defaults-') ? zero(n) : fifo(n)), {});
  // a scenarios folder whose package.json is a FIFO (Q250), and one with a FIFO for a scenario file (Q251)
  mkdirSync(join(dir, 'sc-pkg'));
  writeFileSync(join(dir, 'sc-pkg', 'a.ts'), 'export default 1;\n');
  execFileSync('mkfifo', [join(dir, 'sc-pkg', 'package.json')]);
  mkdirSync(join(dir, 'sc-ts'));
  writeFileSync(join(dir, 'sc-ts', 'package.json'), '{ "type": "module" }\n');
  execFileSync('mkfifo', [join(dir, 'sc-ts', 'b.ts')]);
  for (const sc of ['sc-pkg', 'sc-ts'])
    cases.push({
      name: `list --scenarios ${sc}`,
      cwd: dir,
      args: ['list', '--scenarios', sc],
      env: {},
      slots: [{ names: ['--scenarios'], file: sc === 'sc-pkg' ? 'package.json' : 'b.ts' }],
    });
  return cases.map((c) => ({ ...c, name: `fifo: ${c.name}` }));
}

/** The secret-shaped lines, and the secrets they hold. */
function secretLines(): { cases: Line[]; markers: string[] } {
  const dir = join(root, 'secret');
  mkdirSync(join(dir, 'work'), { recursive: true });
  const markers: string[] = [];
  const mark = () => {
    const m = `mk${randomBytes(6).toString('hex')}`;
    markers.push(m);
    return m;
  };
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  // what a person has lying about that holds a secret, in turn
  const kinds: [string, () => string][] = [
    ['.env', () => `AWS_SECRET_ACCESS_KEY=${mark()}\nDB_PASSWORD=${mark()}\n`],
    ['creds.json', () => `${JSON.stringify({ password: mark(), api_key: mark() })}\n`],
    ['creds.yaml', () => `token: ${mark()}\npassword: ${mark()}\n`],
    ['.netrc', () => `machine example.com login bob password ${mark()}\n`],
    [
      'id.pem',
      () => `-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn${mark()}NzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----\n`,
    ],
    [
      'config.json',
      () => {
        const auth = b64(`u:${mark()}`);
        markers.push(auth);
        return `${JSON.stringify({ auths: { 'r.example.com': { auth } } })}\n`;
      },
    ],
    ['kubeconfig', () => `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${mark()}\n`],
  ];
  let n = 0;
  const secret = (name: string) => {
    const [kind, body] = kinds[n++ % kinds.length]!;
    const file = `${name}-${kind}`;
    writeFileSync(join(dir, file), body());
    return file;
  };
  const cases = lines(dir, secret, {}).map((c) => ({ ...c, args: [...c.args, '--json'] }));
  return { cases: cases.map((c) => ({ ...c, name: `secret: ${c.name}` })), markers };
}

const fifo = fifoLines();
const secret = secretLines();
let results: BatchResult[] = [];

t.test('every line ends by itself, in bounded memory, with nothing made', async (t) => {
  results = await batch(t, root, [...fifo, ...secret.cases]);
  t.equal(results.length, fifo.length + secret.cases.length, 'every line ran');
  for (const d of ['fifo', 'secret']) {
    t.notOk(existsSync(join(root, d, 'reports')), `${d}: no reports written`);
  }
  t.notOk(existsSync(join(root, 'work', 'labs')), 'no lab made (HARNESS_WORK_DIR)');
});

t.test('every input slot a FIFO or a device: exit 2, each slot named in one report', async (t) => {
  const cases = fifo;
  for (const c of cases) {
    const r = results.find((x) => x.name === c.name);
    if (!r) continue;
    t.equal(r.code, 2, `${c.name}: exit 2 in ${r.ms} ms (${r.stderr.slice(0, 300)})`);
    for (const s of c.slots)
      t.ok(
        problemLines(r).some((l) => l.includes(s.file) && s.names.some((n) => l.includes(n))),
        `${c.name}: ${s.names[0] || 'a word'} (${s.file}) named`,
      );
  }
});

t.test('every input slot a secret-shaped file: no secret in stdout, stderr or --json', async (t) => {
  const { cases, markers } = secret;
  for (const r of results.filter((x) => cases.some((c) => c.name === x.name))) {
    t.not(r.code, 0, `${r.name}: refused (${r.ms} ms)`);
    const shown = markers.filter((m) => r.stdout.includes(m) || r.stderr.includes(m));
    t.same(shown, [], `${r.name}: no secret shown`);
  }
});
