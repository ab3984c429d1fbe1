// The CLI's twenty-eighth adversarial pass, part B (docs/cli-defects.md, rows Q560 on): the hints of destroy and
// login under a work dir of your own (each pasted into `bash -c` must act on the labs it was printed about), sweeps
// over labs they can never pick whose spec cannot be read, lab specs edited by hand (a slot of another type, an empty
// role, a name led by "-", no machines, 200000 machines), and the exit codes every command documents for SIGHUP.
// destroy runs with the fake vagrant of test/fixtures/fake-bin; login and list-labs run main() in this process.
import t from 'tap';
import '../helpers/ts-loader.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../../lib/config/schema.js';
import { helpText } from '../../lib/cli/args.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { destroyLabs, type DestroySweep } from '../../lib/cli/destroy.js';
import { findLabs, renderLabs } from '../../lib/cli/labs.js';
import { nextCommands } from '../../lib/cli/setup.js';
import { runDoctor } from '../../lib/cli/doctor.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { LabHost } from '../../lib/lab/host/host.js';
import type { LogEvent } from '../../lib/log/events.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';
import { labSpecJson, paster } from '../helpers/fabricated-lab.js';

t.setTimeout(2 * 60_000);

/** destroyLabs over `work` with the fake vagrant (it removes nothing and exits 0): its code and its warnings. */
async function destroyIn(root: string, work: string, ids: string[], sweep: DestroySweep) {
  const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, provider: 'virtualbox' as const, workDir: work } };
  const env = {
    PATH: `${fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url))}:${process.env['PATH']}`,
    FAKE_VAGRANT_MODE: 'dir',
    FAKE_VAGRANT_DIR: join(root, 'fake'),
  };
  mkdirSync(join(root, 'fake'), { recursive: true });
  const events: LogEvent[] = [];
  const code = await destroyLabs(config, ids, false, (e) => void events.push(e), {
    vagrant: { env, lockDir: root },
    sweep,
  });
  return { code, warns: events.flatMap((e) => (e.kind === 'warn' ? [e.message] : [])).join('\n') };
}

t.test(
  "destroy of a lab whose spec is cut, under a work dir of your own: its hint names the narrowest sweep with that work dir, not 'destroy --all', which pasted removed every lab of the default work dir (Q560)",
  async (t) => {
    const root = t.testdir({});
    const paste = paster(root);
    const work = join(root, "w d'q $(touch PWNED) x");
    mkdirSync(join(work, 'cut'), { recursive: true });
    writeFileSync(join(work, 'cut', 'lab-spec.json'), labSpecJson('cut').slice(0, 40));
    const { code, warns } = await destroyIn(root, work, ['cut'], {});
    t.equal(code, 3, 'kept, exit 3');
    t.notMatch(warns, /destroy --all/, 'not the sweep of every lab');
    const hint = /an orphan that any sweep removes \((.*)\)$/m.exec(warns)?.[1] ?? '';
    t.same(paste(hint), ['destroy', '--stale', '--work-dir', work], warns);
    t.notOk(existsSync(join(root, 'PWNED')));
  },
);

t.test(
  "destroy --warm, --stale and --older-than pass over the labs they can never pick: a kept lab whose spec is cut is not 'could not destroy … kept' with exit 3 (Q562)",
  async (t) => {
    const root = t.testdir({});
    const work = join(root, 'work');
    for (const id of ['r00001aaaaaaaa', 'cut']) mkdirSync(join(work, id), { recursive: true });
    writeFileSync(join(work, 'r00001aaaaaaaa', 'lab-spec.json'), labSpecJson('r00001aaaaaaaa'));
    writeFileSync(join(work, 'cut', 'lab-spec.json'), '{"runId": "cut", "mach');
    for (const sweep of [{ warm: true }, { stale: true }, { olderThanS: 24 * 3600 }] as DestroySweep[]) {
      const { code, warns } = await destroyIn(root, work, [], sweep);
      t.equal(code, 0, `${JSON.stringify(sweep)}: nothing it picks failed`);
      t.notMatch(warns, /could not destroy lab cut/, JSON.stringify(sweep));
    }
    t.same(readdirSync(work).sort(), ['cut', 'r00001aaaaaaaa'], 'the young kept lab is left by --older-than 24h');
    // a lab old enough for the sweep is read, and one whose spec is cut is told and kept
    const old = new Date(Date.now() - 48 * 3600_000);
    utimesSync(join(work, 'cut', 'lab-spec.json'), old, old);
    const swept = await destroyIn(root, work, [], { olderThanS: 24 * 3600 });
    t.equal(swept.code, 3);
    t.match(swept.warns, /could not destroy lab cut .*; kept/);
    t.same(readdirSync(work).sort(), ['cut', 'r00001aaaaaaaa']);
  },
);

t.test(
  'login under a work dir of your own: the hints for a lab whose spec cannot be read and for a missing run id name list-labs (and destroy) with it (Q561)',
  async (t) => {
    const root = t.testdir({});
    const paste = paster(root);
    const work = join(root, "w d'q $(touch PWNED) x");
    mkdirSync(join(work, 'cut'), { recursive: true });
    writeFileSync(join(work, 'cut', 'lab-spec.json'), labSpecJson('cut').slice(0, 40));
    const cli = noLabLines(root);
    const cut = await cli('login', 'cut', '--work-dir', work, '--netns', '');
    t.equal(cut.status, 2, cut.stderr);
    const list = /\((reboot-harness list-labs .*) names the lab; (reboot-harness destroy .*) removes it\)/.exec(
      cut.stderr,
    );
    t.ok(list, cut.stderr);
    // with the namespace given (the host's network) (Q600)
    t.same(paste(list?.[1] ?? ''), ['list-labs', '--work-dir', work, '--netns', '']);
    t.same(paste(list?.[2] ?? ''), ['destroy', 'cut', '--work-dir', work, '--netns', '']);
    const none = await cli('login', '--work-dir', work, '--netns', '');
    t.equal(none.status, 2);
    const fix = /or (reboot-harness list-labs .*)\)\)$/m.exec(none.stderr)?.[1] ?? '';
    t.same(paste(fix), ['list-labs', '--work-dir', work, '--netns', ''], none.stderr);
    t.notOk(existsSync(join(root, 'PWNED')));
  },
);

t.test(
  "hand-edited specs: a slot no word, an empty role, a name led by '-' are no machine; no machines, no empty pick (Q563)",
  async (t) => {
    const m = (o: object) => [{ name: 'x-client', role: 'client', privateIp: '10.199.0.11', ...o }];
    const root = t.testdir({
      work: {
        slot5: { 'lab-spec.json': labSpecJson('slot5', m({ slot: 5 })), 'ssh-config': 'Host x\n' },
        noslot: { 'lab-spec.json': labSpecJson('noslot', m({ slot: '' })), 'ssh-config': 'Host x\n' },
        norole: { 'lab-spec.json': labSpecJson('norole', m({ role: '' })), 'ssh-config': 'Host x\n' },
        dash: {
          'lab-spec.json': labSpecJson('dash', m({ name: '-oProxyCommand=touch PWNED' })),
          'ssh-config': 'Host x\n',
        },
        empty: { 'lab-spec.json': labSpecJson('empty', []), 'ssh-config': 'Host x\n' },
        good: { 'lab-spec.json': labSpecJson('good'), 'ssh-config': 'Host x\n' },
      },
    });
    const config = {
      ...DEFAULTS,
      lab: { ...DEFAULTS.lab, provider: 'virtualbox' as const, workDir: join(root, 'work') },
    };
    const { labs, problems } = await findLabs(config, { orphans: false });
    t.same(labs.map((l) => l.id).sort(), ['empty', 'good']);
    for (const id of ['slot5', 'noslot', 'norole', 'dash'])
      t.match(problems.join('\n'), new RegExp(`lab ${id} .*machine 1 of 1 is no machine with a name and a role`), id);
    const cli = noLabLines(root);
    const slot = await cli('login', 'slot5', '5', '--work-dir', join(root, 'work'), '--netns', '');
    t.equal(slot.status, 2);
    t.notMatch(slot.stderr, /give one of: 5/);
    const empty = await cli('login', 'empty', '--work-dir', join(root, 'work'), '--netns', '');
    t.equal(empty.status, 2);
    t.match(empty.stderr, /the lab has no machines/);
    t.notMatch(empty.stderr, /give one of: \)/, 'no empty list to pick from');
    t.notOk(existsSync(join(root, 'PWNED')));
  },
);

t.test(
  "list-labs' table over a spec of 200000 machines: the MACHINES cell is cut, not every row padded to 1.2 MB (Q564)",
  async (t) => {
    const many = Array.from({ length: 200_000 }, (_, i) => (i ? `client-${i + 1}` : 'client'));
    const text = renderLabs(
      [
        { id: 'big', kind: 'kept', dir: '/w/big', ageS: 5, machines: many, topology: '0+200000' },
        { id: 'r1', kind: 'kept', dir: '/w/r1', ageS: 5, machines: ['server', 'client'], topology: '1+1' },
      ],
      '/w',
    );
    t.ok(text.length < 2000, `${text.length} characters`);
    t.match(text, /client,client-2,.*,… \(200000 machines\)/);
    t.match(text, /^r1 +kept .*server,client +\/w\/r1$/m);
  },
);

t.test(
  "every command's exit codes name SIGHUP with Ctrl-C and SIGTERM (main() takes it as a SIGTERM: exit 130), and merge's 130 the merge itself (Q566)",
  async (t) => {
    const reference = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    let told = 0;
    for (const c of COMMANDS) {
      const exits = /^Exit codes: (.*)$/m.exec(helpText(c.name))?.[1] ?? '';
      // the commands whose own sentence names no 130 get main()'s (list, doctor, setup, destroy, completion, login, list-labs)
      if (/130 interrupted \((?!resume)/.test(exits)) {
        told++;
        t.match(exits, /130 interrupted \(Ctrl-C, SIGTERM or SIGHUP\)/, c.name);
      }
      t.ok(reference.includes(`Exit codes: ${exits}`), `docs/cli.md says the same of ${c.name}`);
    }
    t.ok(told >= 7, `${told} commands name main()'s 130`);
    t.match(helpText('merge'), /130 a cell was interrupted, or the merge itself \(Ctrl-C, SIGTERM or SIGHUP\)/);
  },
);

t.test(
  'one run retried into its reports folder (GitLab: reports/smoke twice) merged: told as the run twice in that folder, the earlier to move out, not two runs to merge each on its own (Q565)',
  async (t) => {
    const dir = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
    });
    const cli = noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await cli(
        'run',
        'bad',
        '--scenarios',
        'usc',
        '--netns',
        '',
        '--reports-dir',
        'reports/smoke',
        '--junit',
        'reports/smoke/junit.xml',
      );
      t.equal(r.status, 1, r.stderr);
      ids.push(/run (r\w+)\)/.exec(r.stdout)?.[1] ?? '');
    }
    const m = await cli('merge', 'reports', '--out', 'merged');
    t.equal(m.status, 2);
    t.match(
      m.stderr,
      /the run ran twice into reports\/smoke \(a retried job, or a runner whose earlier reports were kept\)/,
    );
    t.notMatch(m.stderr, /merge the reports of each on their own/);
    const earlier = /the earlier is (r\w+): move (\S+) out of the inputs/.exec(m.stderr);
    t.same(earlier?.slice(1), [ids[0], `reports/smoke/${ids[0]}`], m.stderr);
    // followed: the earlier run moved out, the later merges with its JUnit file
    renameSync(join(dir, 'reports', 'smoke', ids[0]!), join(dir, ids[0]!));
    const again = await cli('merge', 'reports', '--out', 'merged');
    t.equal(again.status, 1, again.stderr);
    t.match(again.stdout, /merged 1 suites from 1 JSON reports/);
    // two jobs, each its own folder, are still two runs to merge each on its own (Q523)
    renameSync(join(dir, ids[0]!), join(dir, 'reports', 'job-a'));
    const two = await cli('merge', 'reports', '--out', 'merged');
    t.equal(two.status, 2);
    t.match(two.stderr, /two runs that are no cells of one matrix/);
  },
);

t.test(
  "setup's next commands after --netns <name> or --netns '': each pasted names that namespace, so doctor checks the libvirtd setup started (not nrh-lab's) (Q567)",
  async (t) => {
    const dir = t.testdir({});
    const paste = paster(dir);
    const lines = (text: string) =>
      text
        .split('\n')
        .slice(1)
        .map((l) => l.replace(/ +# .*$/, '').trim());
    const cases: [LabHost | undefined, string, string[]][] = [
      [
        { netns: "my lab$(touch PWNED)'", libvirtdPid: 1, started: [] },
        "my lab$(touch PWNED)'",
        ['--netns', "my lab$(touch PWNED)'"],
      ],
      [undefined, '', ['--netns', '']],
      [{ netns: DEFAULTS.lab.netns, libvirtdPid: 1, started: [] }, DEFAULTS.lab.netns, []],
    ];
    for (const [host, netns, words] of cases) {
      const [doctor, cni, run] = lines(nextCommands(host, netns));
      t.same(paste(doctor ?? ''), ['doctor', ...words], doctor ?? '');
      t.same(paste(cni ?? ''), ['run', 'cni-ipam-reboot', ...words]);
      t.same(paste((run ?? '').replace('<build>', '1.9.7')), ['run', '--nomad', '1.9.7', ...words]);
    }
    t.notOk(existsSync(join(dir, 'PWNED')));
  },
);

t.test(
  "doctor --netns <name>: the fixes' reboot-harness setup and sudo reboot-harness doctor name that namespace, not nrh-lab (Q568)",
  async (t) => {
    const dir = t.testdir({ 'libvirtd.pid': String(process.pid) });
    const paste = paster(dir);
    const run: RunCommand = async (file) => ({
      code: 1,
      stdout: '',
      stderr: file === 'ip' ? 'Cannot open network namespace: Permission denied\n' : 'error: failed to connect\n',
      durationMs: 1,
    });
    for (const [netns, words] of [
      ['mylab', ['--netns', 'mylab']],
      [DEFAULTS.lab.netns, []],
    ] as const) {
      const items = await runDoctor({
        deadline: deadlineIn(10_000),
        workDir: dir,
        netns,
        run,
        libvirtdPidFile: join(dir, 'libvirtd.pid'),
      });
      const setup = /^(reboot-harness setup.*?) {3}\(starts/.exec(
        items.find((i) => i.name === 'libvirtd reachable')?.fix ?? '',
      );
      t.same(paste(setup?.[1] ?? ''), ['setup', ...words], netns);
      const again = /: sudo (reboot-harness doctor.*)\)$/.exec(
        items.find((i) => i.name === 'network namespace')?.fix ?? '',
      );
      t.same(paste(again?.[1] ?? ''), ['doctor', ...words], netns);
    }
  },
);
