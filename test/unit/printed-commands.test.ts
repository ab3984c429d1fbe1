// Printed commands (docs/cli-defects.md "Printed commands"): every command line the harness prints for a person to
// paste or run is made by lib/shell/command-line.ts `commandLine`, each value through quote(). The scan fails on a new
// one built by interpolation; the rest pastes hostile values (a lab id `x;touch PWN`, `$(touch PWN)`, a path with a
// space and a quote) into bash with recording shims on PATH, and reads back the same argv with nothing run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { resumeCommand } from '../../lib/cli/bisect-input.js';
import { doctorNomadSpec } from '../../lib/cli/doctor.js';
import { keptMessage } from '../../lib/cli/labs.js';
import { missingShardProblems } from '../../lib/cli/merge-shards.js';
import type { RunRecord } from '../../lib/model/run.js';
import type { SessionReport } from '../../lib/model/session.js';
import { renderSessionConsole } from '../../lib/report/console.js';
import { reproReporter } from '../../lib/report/reporters.js';
import { commandLine, labCommand } from '../../lib/shell/command-line.js';
import { raw } from '../../lib/shell/quote.js';
import { rawWords } from '../helpers/command-scan.js';
import { contextIn, sessionOf } from '../helpers/session.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/**
 * Reviewed: command-shaped text with a value that is no command a person pastes, or a remote command whose values
 * are constants. Key `file :: expression`. Keep it short: each entry is taken on trust.
 */
const ALLOWED: Record<string, string> = {
  'lib/cli/main.ts :: pkg.version': 'the --version line ("reboot-harness 0.1.0"), not a command',
  "lib/checks/alloc-exec.ts :: EXEC_PROBE_COMMAND.join(' ')":
    "a check's passes-when sentence naming its probe; the words are a constant of the check",
  'lib/cluster/evidence.ts :: dirs':
    'a remote command run over SSH, not printed: CNI_STATE_DIRS.map(quote) (constants)',
  'lib/lab/ssh/ssh-cleanup.ts :: ns': 'a remote command run over SSH, not printed: PROBE_NETNS (constants)',
  'lib/lab/ssh/ssh-cleanup.ts :: b': "a remote command run over SSH, not printed: 'nomad' and PROBE_BRIDGE (constants)",
  'lib/ssh/disrupt-link.ts :: ip': 'an error naming the command that failed (run quoted two lines up), not a hint',
  'lib/ssh/disrupt-link.ts :: LOSS_HEAL_UNIT': 'a remote command run over SSH, not printed: a constant unit name',
  'lib/ssh/disrupt.ts :: unit': 'a remote command run over SSH, not printed: HEAL_UNIT and the other constant units',
  'lib/ssh/disrupt.ts :: c.healUnit': 'a remote command run over SSH, not printed: a constant unit name',
  'lib/ssh/disrupt-process.ts :: victim.pid': 'a remote command run over SSH, not printed: a pid parsed as a number',
  'lib/vagrant/snapshot.ts :: domain': 'an error naming the virsh command that failed (run from an argv), not a hint',
  'lib/vagrant/snapshot.ts :: name': 'an error naming the virsh command that failed (run from an argv), not a hint',
};

/**
 * Printed commands in frozen paths still built by interpolation: docs/cli-defects.md Q440 gives each one's change.
 * Not allowed: shown as TODO on every run, and the list only shrinks (an entry the scan no longer finds fails).
 */
const DEBTS: Record<string, string> = {
  'lib/lab/vagrant/vagrant-lab.ts :: spec.runId': 'Q440 (describe: destroy and login lines, no --work-dir: Q426)',
  "lib/lab/vagrant/vagrant-lab.ts :: spec.machines.map(slotOf).join('|')": 'Q440 (describe: the login line)',
  'lib/lab/warm/warm-lab.ts :: id': 'Q440 (the hint "remove the warm lab: reboot-harness destroy <id>", no --work-dir)',
  'lib/run/runner.ts :: ctx.runId': 'Q440 (--keep and teardown messages: login/destroy <run id>, no --work-dir)',
  'lib/lab/ssh/ssh-lab.ts :: h.port': 'Q440 (describe: the ssh line; its values quoted where built)',
  'lib/lab/ssh/ssh-lab.ts :: jump': 'Q440 (describe: the ssh line; its values quoted where built)',
  'lib/lab/ssh/ssh-lab.ts :: to': 'Q440 (describe: the ssh line; its values quoted where built)',
  'lib/lab/host/host.ts :: running': 'Q440 (the hint "kill <pid>"; a number)',
};

const keyOf = (w: { at: string; expr: string }) => `${w.at.replace(/:\d+$/, '')} :: ${w.expr}`;

t.test('the scan finds a value put on a printed command by interpolation, and nothing else', async (t) => {
  const found = (src: string) => rawWords('x.ts', src).map((w) => w.expr);
  // found: the shapes of Q380, Q381, Q420, Q424, Q425, Q426
  t.same(found('const a = `hint: reboot-harness destroy ${id} removes them`;'), ['id']);
  t.same(found('const a = `continue with: reboot-harness bisect --resume ${dir}\\n`;'), ['dir']);
  t.same(found('const a = `(reboot-harness matrix ${file} --list-cells --shards ${n} lists`;'), ['file', 'n']);
  t.same(found('const a = `  destroy:\n  reboot-harness destroy ${id}   (by hand: env ${cwd} vagrant destroy -f)`;'), [
    'id',
  ]);
  t.same(found('const a = `or: ip netns add ${ns} && ip netns exec ${ns} libvirtd -d`;'), ['ns', 'ns']);
  t.same(found('const a = `then HARNESS_NETNS=${ns} reboot-harness setup`;'), ['ns']);
  t.same(found("const a = 'run reboot-harness login ' + id;"), ['id']);
  t.same(found("const a = ['reboot-harness', 'destroy', id].join(' ');"), ['id']);
  t.same(found('const a = `kept (reboot-harness login ${id}); closed`;'), ['id']);
  t.same(found('const a = `--resume ${dir}`;'), ['dir']);
  // not found: quoted, made by commandLine, sh``, or prose
  t.same(found('const a = `reboot-harness destroy ${quote(id)}`;'), []);
  t.same(found("const a = `or now: ${commandLine(['reboot-harness', 'build', spec])}`;"), []);
  t.same(found('const a = sh`reboot-harness destroy ${id}`;'), []);
  t.same(found('const a = `vagrant destroy left VMs of run ${id}: ${left}`;'), []);
  t.same(found('const a = `vagrant status failed: ${err}`;'), []);
  t.same(found('const a = `node ${id} is ready again`;'), []);
  t.same(found('const a = `virsh could not tell whether ${what} exists`;'), []);
});

t.test('every printed command in lib/ is made by commandLine (or quote): none built by interpolation', async (t) => {
  const files = walk(join(ROOT, 'lib'));
  t.ok(files.length > 100, 'the walk finds lib/');
  const words = files.flatMap((f) => rawWords(relative(ROOT, f), readFileSync(f, 'utf8')));
  const keys = new Set(words.map(keyOf));
  const fresh = words.filter((w) => !(keyOf(w) in ALLOWED) && !(keyOf(w) in DEBTS));
  t.same(
    fresh.map((w) => `${w.at}: ${w.expr} in \`${w.line}\``),
    [],
    'build the line with commandLine([...]) (lib/shell/command-line.ts), or review it into ALLOWED with its reason',
  );
  const stale = [...Object.keys(ALLOWED), ...Object.keys(DEBTS)].filter((k) => !keys.has(k));
  t.same(stale, [], 'an entry the scan no longer finds: remove it (the lists only shrink)');
  for (const [k, row] of Object.entries(DEBTS)) t.comment(`TODO ${k}: ${row}`);
});

/** Hostile values: shell syntax, a space, a quote, a newline, a tilde. */
const HOSTILE = ['a b', 'x;touch PWN', '$(touch PWN)', '`touch PWN`', "it's", 'nl\nid', '~root', ''];

t.test('commandLine: each value one word of the line, pasted back the same; raw text kept', async (t) => {
  t.equal(
    commandLine(['reboot-harness', 'destroy', 'r0abc', '--work-dir', '/tmp/w']),
    'reboot-harness destroy r0abc --work-dir /tmp/w',
  );
  t.equal(commandLine(['kill', 42, raw('&&'), 'true']), 'kill 42 && true');
  t.equal(commandLine(['x', raw('<pid>')]), 'x <pid>');
  const line = commandLine(['printf', '%s\\0', ...HOSTILE]);
  const dir = t.testdir({});
  const r = spawnSync('bash', ['-c', line], { cwd: dir, encoding: 'utf8' });
  t.same(r.stdout.split('\0').slice(0, -1), HOSTILE);
  t.same(readdirSync(dir), [], 'nothing ran');
});

/** A private folder with recording shims first on PATH: each call appends its name, argv and $HARNESS_NETNS. */
function pasteBench(dir: string) {
  const bin = join(dir, 'bin');
  const log = join(dir, 'calls');
  mkdirSync(bin);
  for (const name of ['reboot-harness', 'node', 'ip', 'sha256sum'])
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\nprintf '%s\\0' "$(basename "$0")" "$@" "HARNESS_NETNS=\${HARNESS_NETNS-unset}" '--end--' >> "$SHIM_LOG"\n`,
      { mode: 0o755 },
    );
  const env = { PATH: `${bin}:/usr/bin:/bin`, SHIM_LOG: log, HOME: dir, NOMAD_TOKEN: SECRET };
  /** Run `line` as a person pasting it does (bash -c; `sh <file>` for a script) and return the calls it made. */
  const paste = (line: string, shell: string[] = ['bash', '-c']) => {
    writeFileSync(log, '');
    const r = spawnSync(shell[0]!, [...shell.slice(1), line], { cwd: dir, env, encoding: 'utf8' });
    const calls = readFileSync(log, 'utf8')
      .split('--end--\0')
      .filter(Boolean)
      .map((c) => c.split('\0').slice(0, -1));
    return { calls, status: r.status, stderr: r.stderr };
  };
  return { paste };
}

/** Every file or folder under `dir` named PWN: what a pasted line would have made. */
const pwned = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'PWN' ? [join(dir, e.name)] : e.isDirectory() ? pwned(join(dir, e.name)) : [],
  );

const SECRET = 's3cr3t-acl-token-0123456789abcdef';

t.test('the lab hints (login, destroy, --keep) pasted: the same id and work dir, nothing run', async (t) => {
  const dir = t.testdir({});
  const { paste } = pasteBench(dir);
  const work = join(dir, "w d'q $(touch PWN)");
  for (const id of HOSTILE.filter(Boolean)) {
    const hint = labCommand('destroy', id, work);
    t.same(paste(hint).calls, [['reboot-harness', 'destroy', id, '--work-dir', work, 'HARNESS_NETNS=unset']], hint);
    const kept = /destroy later with: ([^]*)\n$/.exec(keptMessage(id, ['a tunnel to the lab'], work))?.[1];
    t.same(paste(kept ?? '').calls, [['reboot-harness', 'destroy', id, '--work-dir', work, 'HARNESS_NETNS=unset']]);
  }
  t.equal(
    labCommand('destroy', 'r0abc', '/tmp/nomad-reboot-harness'),
    'reboot-harness destroy r0abc',
    'the default dir unsaid',
  );
  const login = labCommand('login', 'x;touch PWN', work, ['client']);
  t.same(paste(login).calls, [
    ['reboot-harness', 'login', 'x;touch PWN', 'client', '--work-dir', work, 'HARNESS_NETNS=unset'],
  ]);
  t.same(pwned(dir), []);
});

t.test("doctor's build hint and bisect's --resume lines pasted: one spec, one folder, nothing run", async (t) => {
  const dir = t.testdir({ "src d'q $(touch PWN)": { 'go.mod': 'module github.com/hashicorp/nomad\n' } });
  const { paste } = pasteBench(dir);
  const spec = `git:${join(dir, "src d'q $(touch PWN)")}`;
  const r = await doctorNomadSpec(spec, {
    field: '--nomad',
    cwd: dir,
    home: dir,
    cacheRoot: join(dir, 'cache'),
    releasesUrl: 'http://127.0.0.1:9/',
  });
  const now = /or now: (reboot-harness build .*)\)$/.exec('item' in r ? r.item.detail : '')?.[1];
  t.same(paste(now ?? '').calls, [['reboot-harness', 'build', spec, 'HARNESS_NETNS=unset']], now ?? 'no hint');
  const folder = join(dir, "reports d'q/bisect-$(touch PWN)");
  const started = join(dir, 'started `touch PWN` here');
  mkdirSync(started);
  t.same(paste(resumeCommand(folder)).calls, [['reboot-harness', 'bisect', '--resume', folder, 'HARNESS_NETNS=unset']]);
  // from elsewhere: `cd <where it started> && reboot-harness bisect --resume <folder>`
  t.same(paste(resumeCommand(folder, started)).calls, [
    ['reboot-harness', 'bisect', '--resume', folder, 'HARNESS_NETNS=unset'],
  ]);
  t.same(pwned(dir), []);
});

t.test("merge's fix for a missing shard pasted: the matrix file one word, nothing run", async (t) => {
  const dir = t.testdir({});
  const { paste } = pasteBench(dir);
  const file = "ci/my $(touch PWN) 'q.yaml";
  const session = {
    command: 'matrix',
    matrix: { file, path: file, shard: '1/2', cellsInMatrix: 2, all: [] },
    suites: [{ key: 'a', rerun: { argv: ['matrix'] } }],
  } as unknown as SessionReport;
  const fix = missingShardProblems([{ path: 'r1', session }])[0]?.fix ?? '';
  const line = /\((reboot-harness .*) lists each/.exec(fix)?.[1];
  t.same(
    paste(line ?? '').calls,
    [['reboot-harness', 'matrix', file, '--list-cells', '--shards', '2', 'HARNESS_NETNS=unset']],
    fix,
  );
  t.same(pwned(dir), []);
});

t.test(
  'repro.sh and the console re-run line of a cell with a hostile name, cwd and inputs: run, the same argv',
  async (t) => {
    const dir = t.testdir({});
    const { paste } = pasteBench(dir);
    const cwd = join(dir, "c w'd $(touch PWN)");
    mkdirSync(cwd);
    const cli = join(dir, "bin d'q/reboot-harness $(touch PWN).js");
    const run = JSON.parse(
      readFileSync(new URL('../fixtures/report/reboot-run.json', import.meta.url), 'utf8'),
    ) as RunRecord;
    const s = sessionOf([run], 'matrix');
    const file = "ci/m $(touch PWN) 'q.yaml";
    const cell = 'box=x;touch PWN/reboot=`touch PWN`';
    s.suites[0]!.rerun = { scope: 'suite', argv: ['matrix', file, '--cell', cell], keepArgs: true, builds: [] };
    const netns = 'n s;touch PWN';
    const files = reproReporter.files(
      s,
      contextIn(join(dir, 'reports'), {
        cwd,
        cli,
        rawArgs: [file, '--job', "j b'q $(touch PWN).hcl", '--token', SECRET, '--shard', '1/2'],
        secrets: [SECRET],
        env: [['HARNESS_NETNS', netns]],
      }),
    );
    t.equal(files.length, 1, 'the failed cell has its repro.sh');
    const want = [
      [
        'node',
        cli,
        'matrix',
        file,
        '--cell',
        cell,
        '--job',
        "j b'q $(touch PWN).hcl",
        '--token',
        SECRET,
        `HARNESS_NETNS=${netns}`,
      ],
    ];
    t.notMatch(files[0]!.text, SECRET, 'the token is read from $NOMAD_TOKEN, not written');
    const script = join(dir, 'repro.sh');
    writeFileSync(script, files[0]!.text);
    t.same(paste(script, ['sh']).calls, want, 'sh repro.sh');
    t.same(paste(script, ['bash']).calls, want, 'bash repro.sh');
    const con = renderSessionConsole(s, { color: false, written: files, errors: [] });
    const line = /exactly \(also in [^\n]*\):\n {2}([^]*)\n$/.exec(con)?.[1];
    t.ok(line, con);
    t.same(paste(line ?? '').calls, want, 'the console line pasted');
    t.same(pwned(dir), []);
    t.notOk(existsSync(join(cwd, 'PWN')));
  },
);
