// The command layer against what a user types on commands other than a run: every problem of the input at once on
// every command, words too many refused, help texts that say what each command's flags do, YAML as written, a signal
// outside a run, and contradicting expectations. Each case is a row of docs/cli-defects.md.
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { probe } from '../helpers/cli-probe.js';
import { main } from '../../lib/cli/main.js';
import { helpText } from '../../lib/cli/args.js';

t.test(
  'every command tells the command line, harness.yaml and the values at once (doctor, destroy, list, build, merge)',
  async (t) => {
    for (const argv of [
      ['doctor', '--cpus', '0', '--memory', '0'],
      ['destroy', '--cpus', '0', '--older-than', 'soon'],
      ['list', '--cpus', '0', 'extra'],
      ['build', '--cpus', '0'],
    ]) {
      const dir = t.testdir({});
      mkdirSync(join(dir, 'harness.yaml'));
      const p = probe(dir, {}, { doctor: async () => 0 });
      t.equal(await main(argv, p.deps), 2, argv.join(' '));
      const err = p.err();
      t.match(err, /\.\/harness\.yaml \(read by default\): is a directory/, `${argv[0]}: the file`);
      t.match(
        err,
        /--cpus: is an option of `run`, `compare`, `bisect`, `matrix`, not of/,
        `${argv[0]}: the command line`,
      );
      t.same(p.effects, [], 'nothing done');
    }
    const d = probe(t.testdir({}), {}, { doctor: async () => 0 });
    t.equal(await main(['doctor', '--cpus', '0', '--memory', '0'], d.deps), 2);
    t.match(d.err(), /2 problems/);
    t.match(d.err(), /--memory: /, "a value of doctor's own with the option of another command");
    const x = probe(t.testdir({}));
    t.equal(await main(['destroy', '--cpus', '0', '--older-than', 'soon'], x.deps), 2);
    t.match(x.err(), /--older-than: /, "destroy's own problem with the command line's");
    const b = probe(t.testdir({}));
    t.equal(await main(['build', '--cpus', '0'], b.deps), 2);
    t.match(b.err(), /build spec: is required/, "build's missing spec with the command line's");
    const s = probe(t.testdir({}));
    t.equal(await main(['build', '--cpus', '0', './nope/nomad', 'banana'], s.deps), 2);
    t.match(s.err(), /3 problems/);
    t.match(s.err(), /build spec 1: no file at/, "build's spec problems with the command line's");
    t.match(s.err(), /build spec 2: /);
    const m = probe(t.testdir({}));
    t.equal(await main(['merge', '--cpus', '0', '--out', '/proc/x', 'no-such-folder'], m.deps), 2);
    t.match(m.err(), /3 problems/);
    t.match(m.err(), /--out: /, "merge's --out with the command line's");
    t.match(m.err(), /no-such-folder/, "merge's inputs with the command line's");
  },
);

t.test('words a command does not take are refused: "unexpected argument", exit 2', async (t) => {
  for (const [argv, what] of [
    [['list', 'foo'], /list takes no argument/],
    [['list-labs', 'extra'], /list-labs takes no argument/],
    [['setup', 'extra'], /setup takes no argument/],
    [['doctor', 'extra'], /doctor takes no argument/],
    [['--version', 'foo'], /--version takes no argument/],
    [['help', 'run', 'extra'], /help takes at most 1 help topic/],
  ] as const) {
    const p = probe(t.testdir({}), {}, { doctor: async () => 0, setup: async () => 0 });
    t.equal(await main([...argv], p.deps), 2, argv.join(' '));
    t.match(p.err(), /unexpected argument/);
    t.match(p.err(), what);
    t.equal(p.out(), '', 'no help printed instead');
  }
  const h = probe(t.testdir({}));
  t.equal(await main(['help', '--version'], h.deps), 2, 'help --version: not a topic');
  t.match(h.err(), /help topic: is not a command/);
  const r = probe(t.testdir({}));
  t.equal(await main(['--help', 'run'], r.deps), 0);
  t.match(r.out(), /^reboot-harness run: /, "--help run is run's help, not the general one");
});

t.test("each command's help says what its options do there", async (t) => {
  const destroy = helpText('destroy');
  t.notMatch(destroy, /every scenario/, "destroy --all: no run text on destroy's page");
  t.match(destroy, /--all\s+every lab, warm labs included, and orphan domains/);
  t.notMatch(helpText('run'), /destroy:/, "run --all: no destroy text on run's page");
  t.match(helpText('compare'), /Usage: reboot-harness compare \[scenario\] --before/, 'the scenario is optional');
  for (const c of ['build', 'merge', 'destroy', 'login', 'doctor'])
    t.notMatch(helpText(c), /verdict line and the checks/, `${c}: no run text for --quiet`);
  t.notMatch(helpText('merge'), /--quiet/, 'merge prints the same with --quiet: not offered');
  t.notMatch(helpText('doctor'), /--verbose/, 'doctor prints the same with --verbose: not offered');
  const m = probe(t.testdir({}));
  t.equal(await main(['merge', 'x', '--quiet'], m.deps), 2);
  t.match(m.err(), /--quiet: is an option of .* not of `merge`/);
  const top = helpText()
    .split('\n')
    .filter((l) => /^ {2}\S/.test(l));
  const column = (l: string) => /^ {2}\S+ +/.exec(l)![0].length;
  t.ok(top.length > 10);
  t.same(new Set(top.map(column)).size, 1, 'every summary starts in one column');
  t.match(helpText(), /\n {2}completion {2}print the shell/, 'the longest name keeps two spaces before its summary');
});

t.test('SIGTERM or SIGINT while a command other than a run works: exit 130, one line "interrupted"', async (t) => {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    const signals = new EventEmitter();
    let started: () => void = () => {};
    const begun = new Promise<void>((r) => (started = r));
    // a doctor whose probe takes its minute (the KVM probe can)
    const doctor = () => (started(), new Promise<never>(() => {}));
    const p = probe(t.testdir({}), {}, { doctor, signalSource: signals });
    const code = main(['doctor', '--netns', ''], p.deps);
    await begun;
    signals.emit(sig, sig);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((r) => (timer = setTimeout(() => r('still running'), 3000)));
    t.equal(await Promise.race([code, timeout]), 130, sig);
    clearTimeout(timer);
    t.equal(p.err(), `error: interrupted by ${sig}\n`);
    t.equal(signals.listenerCount(sig), 0, 'no listener left behind');
  }
});

t.test('harness.yaml as YAML writes it: merge keys work, two documents are one clear problem', async (t) => {
  const plan = async (yaml: string) => {
    const dir = t.testdir({ 'harness.yaml': yaml });
    const p = probe(dir);
    const code = await main(['run', '--nomad', './n', '--netns', '', '--plan'], p.deps);
    return { code, p };
  };
  const merged = await plan('lab:\n  <<: {cpus: 3}\n  memory_mb: 2048\n');
  t.equal(merged.code, 0, merged.p.err());
  t.equal(JSON.parse(merged.p.out()).plan.base.lab.cpus, 3, 'the merged key is read');
  const two = await plan('lab:\n  cpus: 1\n---\nlab:\n  cpus: 2\n');
  t.equal(two.code, 2);
  t.match(two.p.err(), /harness\.yaml: holds 2 YAML documents \(separated by ---\)/);
  t.notMatch(two.p.err(), /parseAllDocuments/, 'no advice meant for a programmer');
});

t.test('--expect both ways for one target is refused: which one wins would be a guess', async (t) => {
  for (const [expect, target] of [
    [['fail', 'pass'], /fail and pass for the scenario contradict each other/],
    [['task-dirs=fail', 'task-dirs=pass'], /fail and pass for check task-dirs contradict each other/],
  ] as const) {
    const p = probe(t.testdir({}));
    const argv = ['run', '--nomad', './n', '--netns', '', '--plan', ...expect.flatMap((e) => ['--expect', e])];
    t.equal(await main(argv, p.deps), 2, expect.join(' '));
    t.match(p.err(), target);
    t.equal(p.out(), '', 'no plan printed');
  }
  const ok = probe(t.testdir({}));
  const argv = ['run', '--nomad', './n', '--netns', '', '--plan', '--expect', 'fail', '--expect', 'fail'];
  t.equal(await main(argv, ok.deps), 0, 'the same expectation twice is no contradiction');
});
