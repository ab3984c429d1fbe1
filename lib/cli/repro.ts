// Pure: the one command that re-runs exactly one scenario with the same inputs, naming the Nomad build by path and checksum.
import { quote } from '../ssh/quote.js';

/** Flags that only say where output goes or which scenarios to pick: not inputs of the run itself. */
const OUTPUT_FLAGS = new Set(['--junit', '--report-json', '--reports-dir', '--all', '--json', '--quiet']);
const VALUE_FLAGS_DROPPED = new Set(['--junit', '--report-json', '--reports-dir']);

export interface ReproInput {
  /** argv after the command name `run` */
  args: string[];
  scenario: string;
  cwd: string;
  /** absolute path of the CLI entry (bin/reboot-harness.js) */
  cli: string;
  nomadBinary?: string;
  nomadSha256?: string;
  /** the build upgrade-in-place swaps to (from --upgrade-to, NOMAD_UPGRADE_TO or harness.yaml), absolute */
  upgradeTo?: string;
  upgradeSha256?: string;
}

/** `cd <cwd> && <checksum check> && node <cli> run <scenario> <same inputs>` as one shell line. */
export function reproCommand(r: ReproInput): string {
  const kept: string[] = [];
  for (let i = 0; i < r.args.length; i++) {
    const a = r.args[i]!;
    const flag = a.split('=')[0]!;
    if (!a.startsWith('-')) continue; // the positional scenario name is set below
    if (OUTPUT_FLAGS.has(flag)) {
      if (VALUE_FLAGS_DROPPED.has(flag) && !a.includes('=')) i++;
      continue;
    }
    if (flag === '--nomad-binary' || (flag === '--upgrade-to' && r.upgradeTo)) {
      if (!a.includes('=')) i++;
      continue;
    }
    kept.push(a);
    const next = r.args[i + 1];
    if (!a.includes('=') && next !== undefined && !next.startsWith('-')) kept.push(r.args[++i]!);
  }
  const parts = ['cd', quote(r.cwd), '&&'];
  if (r.nomadBinary && r.nomadSha256) parts.push('echo', quote(`${r.nomadSha256}  ${r.nomadBinary}`), '|', 'sha256sum', '--check', '--quiet', '&&');
  if (r.upgradeTo && r.upgradeSha256) parts.push('echo', quote(`${r.upgradeSha256}  ${r.upgradeTo}`), '|', 'sha256sum', '--check', '--quiet', '&&');
  parts.push('node', quote(r.cli), 'run', quote(r.scenario));
  if (r.nomadBinary) parts.push('--nomad-binary', quote(r.nomadBinary));
  if (r.upgradeTo) parts.push('--upgrade-to', quote(r.upgradeTo));
  parts.push(...kept.map(quote));
  return parts.join(' ');
}
