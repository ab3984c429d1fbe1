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
 * Where a printed lab command must act: the work dir its labs are in and the network namespace `login` enters (and
 * `destroy --host` reads). A config's `lab` is one.
 */
export interface LabPlace {
  workDir: string;
  /** absent: the default (nrh-lab) */
  netns?: string;
}

/**
 * `reboot-harness <verb> <id> [words] [--work-dir <dir>] [--netns <name>]` for a lab: each named when it is not the
 * default, or the pasted line would look for the lab in the default work dir (Q424, Q426) or log in from the default
 * namespace, where another lab may answer at the same address (Q600).
 */
export function labCommand(
  verb: 'destroy' | 'login',
  id: string,
  place: string | LabPlace,
  words: readonly CommandWord[] = [],
): string {
  return commandLine(['reboot-harness', verb, id, ...words, ...labWords(place)]);
}

/**
 * `--work-dir <dir>` and `--netns <name>` when each is not the default, else nothing: what every printed lab command
 * (login, destroy, list-labs, or a hint's template of one) needs to act on the labs it was printed about (Q424, Q426,
 * Q528, Q600). A bare string is a work dir (its namespace the default).
 */
export function labWords(place: string | LabPlace): CommandWord[] {
  const { workDir, netns } = typeof place === 'string' ? { workDir: place, netns: undefined } : place;
  return [
    ...(workDir === DEFAULTS.lab.workDir ? [] : ['--work-dir', workDir]),
    ...(netns === undefined || netns === DEFAULTS.lab.netns ? [] : ['--netns', netns]),
  ];
}

/**
 * `--releases-url <url>` and `--releases-key <file>` of a release build when each is not the default: a printed
 * `reboot-harness build <version>` reads neither harness.yaml nor -c, and pasted without them downloaded from
 * releases.hashicorp.com, not the mirror the config named (Q601). A source tree or a path reads no site: nothing.
 */
export function releasesWords(kind: string, o: { releasesUrl: string; releasesKey?: string }): CommandWord[] {
  if (kind !== 'release') return [];
  return [
    ...(o.releasesUrl === DEFAULTS.builds.releasesUrl ? [] : ['--releases-url', o.releasesUrl]),
    ...(o.releasesKey ? ['--releases-key', o.releasesKey] : []),
  ];
}
