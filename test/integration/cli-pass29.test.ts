// The CLI's twenty-ninth adversarial pass (docs/cli-defects.md, rows Q600 on): the commands the harness prints for a
// person to paste, under a network namespace and a releases site of the user's own. Each line is pasted into `bash -c`
// with a recording `reboot-harness` first on PATH: its argv must act on the labs, namespace and site it was printed
// about. list-labs and login run main() in this process (HARNESS_PROVIDER=virtualbox: no virsh is asked, no lock taken).
import t from 'tap';
import '../helpers/ts-loader.js';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../../lib/config/schema.js';
import { destroyLabs } from '../../lib/cli/destroy.js';
import { doctorNomadSpec } from '../../lib/cli/doctor.js';
import { keptMessage } from '../../lib/cli/labs.js';
import { SAME_CTRL_C_MS, signalRelay } from '../../lib/cli/signal-relay.js';
import type { LogEvent } from '../../lib/log/events.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { writeScenarioWithBody } from '../helpers/labless-scenario.js';
import { labSpecJson, paster } from '../helpers/fabricated-lab.js';

t.setTimeout(2 * 60_000);

const LIB = fileURLToPath(new URL('../../lib', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/reboot-harness.js', import.meta.url));

/** The namespaces a printed lab command must carry: one of the user's own, and "" (the host's network). */
const NAMESPACES = ['my-lab.2', ''];

t.test(
  "list-labs --netns <name>: its login and destroy templates name the namespace, or login pasted entered nrh-lab, where another lab may answer at the lab's address (Q600)",
  async (t) => {
    for (const ns of NAMESPACES) {
      const root = t.testdir({});
      const paste = paster(root);
      const work = join(root, 'w d');
      mkdirSync(join(work, 'r00001aaaaaaaa'), { recursive: true });
      writeFileSync(join(work, 'r00001aaaaaaaa', 'lab-spec.json'), labSpecJson('r00001aaaaaaaa'));
      writeFileSync(join(work, 'r00001aaaaaaaa', 'ssh-config'), 'Host x\n');
      const cli = noLabLines(root, { HOME: root, XDG_CACHE_HOME: join(root, 'xdg'), HARNESS_PROVIDER: 'virtualbox' });
      const r = await cli('list-labs', '--work-dir', work, '--netns', ns);
      t.equal(r.status, 0, r.stderr);
      // the templates with an id put in, as a person does
      const login = (/^reach a kept lab: (.*)$/m.exec(r.stdout)?.[1] ?? '').replace('<id>', 'r1');
      t.same(paste(login), ['login', 'r1', '[machine]', '--work-dir', work, '--netns', ns], login);
      const remove = (/^remove: (.*) \(or --warm/m.exec(r.stdout)?.[1] ?? '').replace('<id>', 'r1');
      t.same(paste(remove), ['destroy', 'r1', '--work-dir', work, '--netns', ns], remove);
    }
    // the default namespace stays unsaid
    const root = t.testdir({});
    const cli = noLabLines(root, { HOME: root, HARNESS_PROVIDER: 'virtualbox', HARNESS_WORK_DIR: join(root, 'w') });
    mkdirSync(join(root, 'w', 'r1'), { recursive: true });
    writeFileSync(join(root, 'w', 'r1', 'lab-spec.json'), labSpecJson('r1'));
    const r = await cli('list-labs', '--netns', DEFAULTS.lab.netns);
    t.notMatch(r.stdout, / --netns /);
  },
);

t.test(
  "login's hints under --netns <name> (a run id that names no lab, none given, a spec that cannot be read) name list-labs and destroy with it (Q600)",
  async (t) => {
    const root = t.testdir({});
    const paste = paster(root);
    const work = join(root, 'w d');
    const ns = NAMESPACES[0]!;
    mkdirSync(join(work, 'cut'), { recursive: true });
    writeFileSync(join(work, 'cut', 'lab-spec.json'), labSpecJson('cut').slice(0, 40));
    mkdirSync(join(work, 'r00001aaaaaaaa'), { recursive: true });
    writeFileSync(join(work, 'r00001aaaaaaaa', 'lab-spec.json'), labSpecJson('r00001aaaaaaaa'));
    const cli = noLabLines(root, { HOME: root, HARNESS_PROVIDER: 'virtualbox' });
    const listed = ['list-labs', '--work-dir', work, '--netns', ns];
    const nope = await cli('login', 'nope', '--work-dir', work, '--netns', ns);
    t.equal(nope.status, 2, nope.stderr);
    t.same(paste(/\((reboot-harness list-labs .*)\)$/m.exec(nope.stderr)?.[1] ?? ''), listed, nope.stderr);
    const none = await cli('login', '--work-dir', work, '--netns', ns);
    t.equal(none.status, 2, none.stderr);
    t.same(paste(/or (reboot-harness list-labs .*?)\)\)/.exec(none.stderr)?.[1] ?? ''), listed, none.stderr);
    const cut = await cli('login', 'cut', '--work-dir', work, '--netns', ns);
    t.equal(cut.status, 2, cut.stderr);
    const m = /\((reboot-harness list-labs .*) names the lab; (reboot-harness destroy .*) removes it\)/.exec(
      cut.stderr,
    );
    t.same(paste(m?.[1] ?? ''), listed, cut.stderr);
    t.same(paste(m?.[2] ?? ''), ['destroy', 'cut', '--work-dir', work, '--netns', ns], cut.stderr);
    const half = await cli('login', 'r00001aaaaaaaa', '--work-dir', work, '--netns', ns);
    t.equal(half.status, 2, half.stderr);
    const d = /half made: (reboot-harness destroy .*) removes them/.exec(half.stderr)?.[1] ?? '';
    t.same(paste(d), ['destroy', 'r00001aaaaaaaa', '--work-dir', work, '--netns', ns], half.stderr);
  },
);

t.test(
  "a lab kept under --netns <name>: the kept message says the login line with the namespace and work dir (the lab's own description, lib/lab, names neither) (Q600)",
  async (t) => {
    const root = t.testdir({});
    const paste = paster(root);
    const work = join(root, 'w d');
    const described =
      'lab r1 (libvirt) in /x\n  log in:  reboot-harness login r1 [client]   (list: reboot-harness list-labs)';
    for (const ns of NAMESPACES) {
      const m = keptMessage('r1', [described], { workDir: work, netns: ns });
      const line = /log in with: (.*)$/m.exec(m)?.[1] ?? '';
      t.same(paste(line), ['login', 'r1', '[machine]', '--work-dir', work, '--netns', ns], m);
      t.same(paste(/destroy later with: (.*)$/m.exec(m)?.[1] ?? ''), [
        'destroy',
        'r1',
        '--work-dir',
        work,
        '--netns',
        ns,
      ]);
    }
    // in the default place the description's own line is right, and nothing is added
    t.notMatch(
      keptMessage('r1', [described], { workDir: DEFAULTS.lab.workDir, netns: DEFAULTS.lab.netns }),
      /log in with/,
    );
  },
);

t.test(
  'destroy of a lab whose spec is cut, under --netns <name>: the sweep it names carries the namespace too (Q600)',
  async (t) => {
    const root = t.testdir({});
    const paste = paster(root);
    const work = join(root, 'w d');
    mkdirSync(join(work, 'cut'), { recursive: true });
    writeFileSync(join(work, 'cut', 'lab-spec.json'), labSpecJson('cut').slice(0, 40));
    const ns = NAMESPACES[0]!;
    const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, provider: 'virtualbox' as const, workDir: work, netns: ns } };
    const events: LogEvent[] = [];
    const code = await destroyLabs(config, ['cut'], false, (e) => void events.push(e), {
      vagrant: { env: { PATH: '/nonexistent' }, lockDir: root },
      sweep: {},
    });
    t.equal(code, 3);
    const warns = events.flatMap((e) => (e.kind === 'warn' ? [e.message] : [])).join('\n');
    const hint = /an orphan that any sweep removes \((.*)\)$/m.exec(warns)?.[1] ?? '';
    t.same(paste(hint), ['destroy', '--stale', '--work-dir', work, '--netns', ns], warns);
  },
);

t.test(
  'every printed lab command in lib/ takes its place through labWords or labCommand with the whole lab place (a bare work dir drops the namespace) (Q600)',
  async (t) => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    // Note: lib/lab and lib/run are frozen: their lines are Q426 and Q570 (docs/cli-defects.md), not judged here
    const FROZEN = ['lab/', 'run/'];
    const seen: string[] = [];
    const bad: string[] = [];
    for (const f of files(LIB)) {
      const rel = relative(LIB, f);
      if (FROZEN.some((p) => rel.startsWith(p)) || rel === 'shell/command-line.ts') continue;
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/commandLine\(\[\s*'reboot-harness',\s*'(login|destroy|list-labs)'[^\n]*/g)) {
        seen.push(`${rel}: ${m[1]}`);
        if (!/labWords\(/.test(m[0])) bad.push(`${rel}: a printed ${m[1]} without labWords: ${m[0]}`);
      }
      for (const m of text.matchAll(/labCommand\([^\n]*/g)) {
        seen.push(`${rel}: labCommand`);
        if (/\.workDir\b|\bworkDir\)/.test(m[0])) bad.push(`${rel}: labCommand given a bare work dir: ${m[0]}`);
      }
      if (/workDirWords\(/.test(text)) bad.push(`${rel}: workDirWords (the work dir alone): labWords names both`);
    }
    t.same(bad, [], 'every printed lab command carries the work dir and the namespace');
    t.ok(seen.length >= 7, `the sites found: ${seen.join('; ')}`);
  },
);

t.test(
  "doctor --nomad <release> under a releases site and key of your own (-c, NOMAD_RELEASES_URL): its 'or now: reboot-harness build' line names them, for build reads no harness.yaml (Q601)",
  async (t) => {
    const dir = t.testdir({});
    const paste = paster(dir);
    const o = { field: '--nomad', cwd: dir, home: dir, cacheRoot: join(dir, 'cache') };
    const mirror = 'http://127.0.0.1:9/mirror';
    const r = await doctorNomadSpec('1.9.7', { ...o, releasesUrl: mirror, releasesKey: join(dir, 'k e y.asc') });
    const now = /or now: (reboot-harness build .*)\)$/.exec('item' in r ? r.item.detail : '')?.[1] ?? '';
    t.same(paste(now), ['build', '1.9.7', '--releases-url', mirror, '--releases-key', join(dir, 'k e y.asc')], now);
    // the default site is unsaid, and a source tree's build reads no site
    const d = await doctorNomadSpec('1.9.7', { ...o, releasesUrl: DEFAULTS.builds.releasesUrl });
    t.match('item' in d ? d.item.detail : '', /or now: reboot-harness build 1\.9\.7\)$/);
    mkdirSync(join(dir, 'src'));
    const g = await doctorNomadSpec('git:src', { ...o, releasesUrl: mirror });
    t.match('item' in g ? g.item.detail : '', /or now: reboot-harness build git:src\)$/);
  },
);

t.test(
  'the signal relay: a SIGINT within 300 ms of the one before is the same Ctrl-C (dropped); a later one, SIGTERM and SIGHUP pass; it listens on the process only while it has listeners (Q602)',
  async (t) => {
    const proc = new EventEmitter();
    let clock = 0;
    const relay = signalRelay(proc, () => clock);
    t.equal(proc.listenerCount('SIGINT'), 0, 'nothing listens before a command does');
    const got: string[] = [];
    const on = (sig: string) => void got.push(sig);
    relay.on('SIGINT', on);
    relay.on('SIGTERM', on);
    relay.on('SIGHUP', on);
    t.equal(proc.listenerCount('SIGINT'), 1);
    proc.emit('SIGINT', 'SIGINT');
    clock += 5;
    proc.emit('SIGINT', 'SIGINT'); // the terminal's and a wrapper's copy of one Ctrl-C
    clock += 5;
    proc.emit('SIGINT', 'SIGINT'); // timeout's copy to its group
    clock += SAME_CTRL_C_MS;
    proc.emit('SIGINT', 'SIGINT'); // a second press
    proc.emit('SIGTERM', 'SIGTERM');
    proc.emit('SIGHUP', 'SIGHUP');
    t.same(got, ['SIGINT', 'SIGINT', 'SIGTERM', 'SIGHUP']);
    relay.off('SIGINT', on);
    relay.off('SIGTERM', on);
    relay.off('SIGHUP', on);
    t.same(
      ['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => proc.listenerCount(s)),
      [0, 0, 0],
      "with no listener left, Node's defaults stand",
    );
  },
);

t.test(
  'a run given one Ctrl-C delivered twice 5 ms apart (GNU timeout passes it on while the terminal sends it too) tears down and writes its reports, exit 130; a press 0.5 s later still exits at once (Q602)',
  async (t) => {
    const dir = t.testdir({});
    writeScenarioWithBody(
      join(dir, 'usc'),
      'slow',
      'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});',
    );
    const runOnce = (gapMs: number) =>
      new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const child = spawn(
          process.execPath,
          [CLI, 'run', 'slow', '--scenarios', 'usc', '--netns', '', '--reports-dir', `r${gapMs}`],
          {
            cwd: dir,
            env: {
              PATH: process.env['PATH'] ?? '',
              HOME: dir,
              HARNESS_WORK_DIR: join(dir, 'work'),
              XDG_CACHE_HOME: join(dir, 'xdg'),
              HARNESS_PROVIDER: 'virtualbox',
            },
          },
        );
        let out = '';
        let err = '';
        let sent = false;
        child.stdout.on('data', (b) => {
          out += String(b);
        });
        child.stderr.on('data', (b) => {
          err += String(b);
          // the run has started (its watchers listen): one Ctrl-C, twice
          if (!sent && /slow: run r/.test(err)) {
            sent = true;
            child.kill('SIGINT');
            setTimeout(() => child.kill('SIGINT'), gapMs);
          }
        });
        child.on('close', (code) => done({ code, out, err }));
      });
    const twice = await runOnce(5);
    t.equal(twice.code, 130, twice.err);
    t.match(twice.err, /ok teardown/, 'the teardown ran');
    t.match(twice.out, /reports: r5\/r\w+\/junit\.xml/, 'the reports were written');
    const again = await runOnce(500);
    t.equal(again.code, 130, again.err);
    t.notMatch(again.out, /reports:/, 'a second press is still "exit at once"');
  },
);
