// The client's read of every task's secrets/ and private/ directory (which filesystem holds it), and its pure parser.
import { quote } from '../shell/quote.js';
import type { TaskDirMount } from '../model/evidence.js';

/** The two task directories Nomad keeps on a tmpfs of their own (client/allocdir/task_dir.go MakeSecretsDirs). */
export const TMPFS_TASK_DIRS = ['secrets', 'private'] as const;

/**
 * A POSIX sh command printing, for every `<allocDir>/<alloc>/<task>/{secrets,private}` directory, `D <path>` and then
 * the filesystem holding it as `findmnt -P` prints it (TARGET is the path itself only when the directory is a mount).
 * Needs root: Nomad's data_dir is 0700.
 */
export function taskDirsCommand(allocDir: string): string {
  const script = [
    'for p in "$1"/*/*/secrets "$1"/*/*/private; do',
    '  [ -d "$p" ] || continue',
    '  printf "D %s\\n" "$p"',
    '  findmnt -n -P -o TARGET,FSTYPE,SOURCE,OPTIONS -T "$p" | head -n 1',
    'done',
  ].join('\n');
  return `sh -c ${quote(script)} sh ${quote(allocDir.replace(/\/+$/, ''))}`;
}

/** `KEY="value"` pairs of one `findmnt -P` line (findmnt escapes a quote inside a value as \x22). */
export function parseFindmntPairs(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/([A-Z_%-]+)="([^"]*)"/g)) {
    out[m[1]!] = m[2]!.replace(/\\x([0-9a-fA-F]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return out;
}

/** Parse taskDirsCommand's output into one record per directory of an alloc's task; lines it cannot place are skipped. */
export function parseTaskDirs(text: string, allocDir: string): TaskDirMount[] {
  const base = allocDir.replace(/\/+$/, '');
  const out: TaskDirMount[] = [];
  let current: TaskDirMount | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('D ')) {
      const path = line.slice(2).trim();
      const rest = path.startsWith(`${base}/`) ? path.slice(base.length + 1).split('/') : [];
      const [allocId, task, dir] = rest;
      current = undefined;
      if (rest.length !== 3 || !allocId || !task || (dir !== 'secrets' && dir !== 'private')) continue;
      current = { allocId, task, dir, path, target: '', fstype: '', source: '', options: '' };
      out.push(current);
    } else if (current && line.includes('TARGET=')) {
      const kv = parseFindmntPairs(line);
      Object.assign(current, {
        target: kv['TARGET'] ?? '',
        fstype: kv['FSTYPE'] ?? '',
        source: kv['SOURCE'] ?? '',
        options: kv['OPTIONS'] ?? '',
      });
      current = undefined;
    }
  }
  return out;
}

/** Is the directory a tmpfs of its own (a mount at the path itself, not a tmpfs somewhere above it)? */
export function isOwnTmpfs(m: TaskDirMount): boolean {
  return m.fstype === 'tmpfs' && m.target === m.path;
}
