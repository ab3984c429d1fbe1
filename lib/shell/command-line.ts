// The one way to make a command line the harness prints for a person to paste or run (a hint, a fix, repro.sh, the
// console's re-run line): every value is a word through quote(), so a lab id, a path or a cell name pasted back is
// the same argv and never runs `$(...)`. test/unit/printed-commands.test.ts fails on one built by interpolation.
import { DEFAULTS } from '../config/schema.js';
import { quote, type RawShell } from './quote.js';

/** A word of a command line: a value (quoted as one word), or shell text kept as is (`raw('&&')`, `raw('<pid>')`). */
export type CommandWord = string | number | RawShell;

/** One command line: each value quoted with quote() (unchanged when it needs no quoting), raw text kept, joined by spaces. */
export function commandLine(words: readonly CommandWord[]): string {
  return words.map((w) => (typeof w === 'object' ? w.raw : quote(w))).join(' ');
}

/**
 * `reboot-harness <verb> <id> [words] [--work-dir <dir>]` for a lab: the work dir named when it is not the default, or
 * the pasted line would look for the lab in the default one (Q424, Q426).
 */
export function labCommand(
  verb: 'destroy' | 'login',
  id: string,
  workDir: string,
  words: readonly CommandWord[] = [],
): string {
  return commandLine(['reboot-harness', verb, id, ...words, ...workDirWords(workDir)]);
}

/**
 * `--work-dir <dir>` when `workDir` is not the default, else nothing: what a printed lab command (login, destroy,
 * list-labs, or a hint's template of one) needs to reach the labs it was printed about (Q424, Q426, Q528).
 */
export function workDirWords(workDir: string): CommandWord[] {
  return workDir === DEFAULTS.lab.workDir ? [] : ['--work-dir', workDir];
}
