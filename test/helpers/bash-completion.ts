// The CLI's bash completion driven as bash drives it at a <TAB>, over lab folders of the given names: what it offers
// (COMPREPLY, which readline inserts as it is) and each offered word as the shell then reads it back.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { noLabCli } from './cli-no-lab.js';

export const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

/** One offered word: as inserted on the line, how many words the shell reads it as, and what it reads. */
export interface Offered {
  inserted: string;
  words: number;
  read: string;
}

/** Write `completion bash` into `dir` and a lab folder (with a lab-spec.json) per id; return the completer. */
export async function bashCompleter(
  t: Test,
  dir: string,
  labs: readonly string[],
): Promise<(...words: string[]) => Offered[]> {
  const c = noLabCli(dir);
  t.equal(await c.run('completion', 'bash'), 0, c.err());
  writeFileSync(join(dir, 'completion.bash'), c.out());
  const work = join(dir, 'work');
  for (const id of labs) {
    mkdirSync(join(work, id), { recursive: true });
    writeFileSync(join(work, id, 'lab-spec.json'), '{}\n');
  }
  return (...words) => {
    const r = spawnSync(
      'bash',
      [
        '-c',
        'source ./completion.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _reboot_harness; for w in "${COMPREPLY[@]}"; do printf "%s\\0" "$w"; eval "set -- $w"; printf "%s\\0%s\\0" "$#" "$1"; done',
        'bash',
        ...words,
      ],
      { cwd: dir, env: { PATH: process.env['PATH'] ?? '', HARNESS_WORK_DIR: work }, encoding: 'utf8' },
    );
    t.equal(r.status, 0, r.stderr);
    const f = r.stdout.split('\0');
    const out: Offered[] = [];
    for (let i = 0; i + 2 < f.length; i += 3) out.push({ inserted: f[i]!, words: Number(f[i + 1]), read: f[i + 2]! });
    return out.sort((a, b) => a.read.localeCompare(b.read));
  };
}
