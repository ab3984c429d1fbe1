// `completion bash|zsh|fish` through the real CLI: the scripts load in the real shells and complete what --help names
// (bash: the completion function called as bash calls it; zsh: a real interactive zsh on a pseudo-terminal, zpty).
import { REBOOT_KINDS } from '../../lib/model/kinds.js';
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

async function script(shell: string): Promise<{ code: number; text: string; err: string }> {
  const s = standInPerRun({}, { cwd: process.cwd() });
  const code = await main(['completion', shell], s.deps);
  return { code, text: s.out.join(''), err: s.err.join('') };
}

t.test('no shell, or one it does not know, is exit 2 naming the three', async (t) => {
  for (const argv of [[], ['tcsh']]) {
    const s = standInPerRun({}, { cwd: process.cwd() });
    t.equal(await main(['completion', ...argv], s.deps), 2);
    t.match(s.err.join(''), /shell: .*give one of: bash, zsh, fish/);
  }
});

t.test(
  "bash: commands, a command's options, a key's values, scenarios, files",
  { skip: !has('bash') && 'no bash' },
  async (t) => {
    const { code, text } = await script('bash');
    t.equal(code, 0);
    const file = join(t.testdir({ 'harness.yaml': '' }), 'rh.bash');
    writeFileSync(file, text);
    const complete = (...words: string[]) => {
      const arr = words.map((w) => `'${w}'`).join(' ');
      const r = spawnSync(
        'bash',
        [
          '-c',
          `source '${file}'; COMP_WORDS=(reboot-harness ${arr}); COMP_CWORD=${words.length}; _reboot_harness; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8', cwd: join(file, '..') },
      );
      t.equal(r.stderr, '', `no error for ${words.join(' ')}`);
      return r.stdout.split('\n').filter(Boolean);
    };
    t.same(complete('ru'), ['run']);
    t.same(complete('co'), ['compare', 'completion']);
    t.same(complete('run', '--reb'), ['--reboot', '--reboot-deadline', '--reboots']);
    t.same(complete('run', '--reboot', ''), [...REBOOT_KINDS]);
    t.same(complete('merge', '--attachment-paths', 'p'), ['project']);
    t.same(complete('run', 'bridge'), ['bridge-exec-reboot']);
    t.same(complete('run', '--config', 'harn'), ['harness.yaml'], 'a path option completes files');
    t.same(complete('doctor', '--json', '--nom'), ['--nomad-binary', '--nomad']);
    t.notOk(complete('list', '--').includes('--reboot'), "only the command's own options");
    t.same(complete('completion', ''), ['bash', 'zsh', 'fish']);
  },
);

t.test(
  "zsh: loads after compinit and completes a key's values in a real shell",
  { skip: !has('zsh') && 'no zsh on this host (apt-get install zsh)' },
  async (t) => {
    const { code, text } = await script('zsh');
    t.equal(code, 0);
    const dir = t.testdir({});
    const file = join(dir, '_reboot-harness');
    writeFileSync(file, text);
    t.equal(spawnSync('zsh', ['-n', file]).status, 0, 'zsh -n: the script parses');
    const loaded = spawnSync(
      'zsh',
      [
        '-f',
        '-c',
        `autoload -U compinit; compinit -u -d '${dir}/zcd'; source '${file}'; print -r -- $_comps[reboot-harness]`,
      ],
      { encoding: 'utf8' },
    );
    t.equal(loaded.stdout.trim(), '_reboot_harness', 'registered for reboot-harness');
    t.equal(loaded.stderr, '');
    const drive = join(dir, 'drive.zsh');
    writeFileSync(
      drive,
      [
        'zmodload zsh/zpty',
        "zpty z 'zsh -f -i'",
        `zpty -w z 'PS1="> "; autoload -U compinit; compinit -u -d ${dir}/zcd2; source ${file}; zstyle ":completion:*" menu no'`,
        "zpty -n -w z $'reboot-harness run --reboot \\t\\t'",
        // Note: read until every kind was listed (or 20 s): a fixed sleep before one read missed the list under load
        "local out='' chunk",
        'integer i=0',
        `until [[ ${REBOOT_KINDS.map((k) => `$out == *${k}*`).join(' && ')} ]] || (( i++ >= 200 )); do`,
        '  while zpty -r -t z chunk; do out+=$chunk; done',
        '  sleep 0.1',
        'done',
        'print -r -- $out',
        'zpty -d z',
      ].join('\n'),
    );
    const r = spawnSync('zsh', ['-f', drive], { encoding: 'utf8', timeout: 30_000 });
    const shown = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    for (const kind of REBOOT_KINDS) t.match(shown, kind, `offers ${kind}`);
  },
);

t.test('fish: one complete line per command and option', async (t) => {
  const { code, text } = await script('fish');
  t.equal(code, 0);
  t.match(text, "complete -c reboot-harness -n '__fish_use_subcommand' -a run -d");
  t.match(
    text,
    "-n '__fish_seen_subcommand_from run' -l reboot -x -a 'graceful hard panic power-off power-loss-all agent-kill executor-kill docker-restart partition leader-partition link-flap link-loss'",
  );
  if (!has('fish')) return void t.pass('fish itself', { skip: 'no fish on this host' });
  const file = join(t.testdir({}), 'rh.fish');
  writeFileSync(file, text);
  const r = spawnSync('fish', ['-c', `source '${file}'; complete -C 'reboot-harness run --reboot '`], {
    encoding: 'utf8',
  });
  t.match(r.stdout, /graceful/);
});

t.test(
  'bash: a file name with a space is one word, --opt=value completes the value, --keep offers on-failure, destroy and login offer the lab ids (N19)',
  { skip: !has('bash') && 'no bash' },
  async (t) => {
    const { text } = await script('bash');
    const dir = t.testdir({
      'a b.yaml': '',
      mydir: {},
      work: { rabc1: { 'lab-spec.json': '{}' }, 'warm-x': { 'lab-spec.json': '{}' }, 'not-a-lab': {} },
    });
    const file = join(dir, 'rh.bash');
    writeFileSync(file, text);
    // words as bash splits them (COMP_WORDBREAKS holds "="), the last one the word completed
    const complete = (words: string[], env: Record<string, string> = {}) => {
      const arr = words.map((w) => `'${w}'`).join(' ');
      const r = spawnSync(
        'bash',
        [
          '-c',
          `source '${file}'; COMP_WORDS=(reboot-harness ${arr}); COMP_CWORD=${words.length}; _reboot_harness; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8', cwd: dir, env: { ...process.env, HARNESS_WORK_DIR: '/nonexistent', ...env } },
      );
      t.equal(r.stderr, '', `no error for ${words.join(' ')}`);
      return r.stdout.split('\n').filter(Boolean);
    };
    t.same(complete(['run', '-c', 'a']), ['a b.yaml'], 'one word, not "a" and "b.yaml"');
    t.match(text, /compopt -o filenames/, 'file places quote names and mark folders with a /');
    t.same(complete(['run', '--reboot', '=', 'h']), ['hard'], '--reboot=h as bash splits it');
    t.same(complete(['run', '--reboot', '=']), [...REBOOT_KINDS], '--reboot= offers every kind');
    t.same(complete(['run', '--reboot=h']), ['hard'], '--reboot=h as one word');
    t.same(complete(['run', '--keep', 'on']), ['on-failure'], "--keep's word");
    t.ok(complete(['run', '--keep', '']).includes('bridge-exec-reboot'), 'or a scenario after the switch');
    const work = join(dir, 'work');
    t.same(complete(['destroy', ''], { HARNESS_WORK_DIR: work }), ['rabc1', 'warm-x'], 'the labs, not files');
    t.same(complete(['login', 'r'], { HARNESS_WORK_DIR: work }), ['rabc1']);
    t.same(complete(['login', '--work-dir', work, '']), ['rabc1', 'warm-x'], '--work-dir on the line wins');
  },
);

t.test('fish and zsh: destroy and login offer the lab ids (N19)', async (t) => {
  const work = join(t.testdir({ work: { rabc1: { 'lab-spec.json': '{}' } } }), 'work');
  if (has('fish')) {
    const file = join(work, '..', 'rh.fish');
    writeFileSync(file, (await script('fish')).text);
    const r = spawnSync('fish', ['-c', `source '${file}'; complete -C 'reboot-harness destroy '`], {
      encoding: 'utf8',
      env: { ...process.env, HARNESS_WORK_DIR: work },
    });
    t.same(r.stdout.split('\n').filter(Boolean), ['rabc1'], 'fish');
  } else t.pass('fish', { skip: 'no fish on this host' });
  const zsh = (await script('zsh')).text;
  t.match(zsh, /'1:run id:_reboot_harness_labs'/, 'zsh: destroy completes lab ids');
  t.match(zsh, /lab-spec\.json\(N\)/, 'zsh: no error when there is no lab');
});
