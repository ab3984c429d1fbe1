// `reboot-harness merge <report folder | JUnit file | summary JSON>...`: the reports of many runners as one.
import type { HarnessConfig } from '../../config/schema.js';
import type { CliCommand } from '../command.js';
import { commandConfig } from '../input.js';
import { mergeCommand, readMergeInputs, type MergeInputs } from '../merge.js';
import { CONFIG } from './options.js';

export const merge: CliCommand = {
  name: 'merge',
  summary: 'merge the reports of many runners (matrix shards) into one JUnit file, one JSON summary and one index page',
  usage: [
    'reboot-harness merge <report folder | JUnit file | summary JSON>... [--out <dir>] [--copy-attachments]',
    '',
    "Reads every JUnit file (given, or found under the folders), the summary.json files and the cells'",
    'report.html pages, and writes <out>/junit.xml (one suite per cell, counts recounted, reruns kept) and',
    '<out>/index.html (the matrix as a table of verdicts, each cell linking its page). A suite name found in two',
    "runs is an error (exit 2): one cell ran twice (docs/ci.md). --copy-attachments copies every run's attachments",
    'and page into <out>/<run id>/ and points the merged JUnit and index at the copies (a folder that stands alone).',
  ],
  exits:
    '0 every merged cell passed; 1 a check failed; 2 usage error, unreadable input, a cell found twice or a matrix shard missing; 3 an infrastructure error in a cell, or a merged report that could not be written; 70 harness bug; 130 a cell was interrupted, or the merge itself (Ctrl-C, SIGTERM or SIGHUP)',
  options: [
    CONFIG,
    {
      name: 'out',
      type: 'string',
      arg: '<dir>',
      file: 'write',
      doc: "where the merged junit.xml, summary.json and index.html go (default <reports-dir>/merged); not a folder holding a run's own reports",
    },
    {
      name: 'copy-attachments',
      type: 'boolean',
      doc: "copy every run's attachments and page into --out, so the merged folder stands alone (its JUnit names the copies)",
    },
  ],
  configFlags: ['reports-dir', 'attachment-paths'],
  positionals: { what: 'report folder, JUnit file or summary JSON', complete: 'files' },
  reads: ['reports.', 'output.', 'nomad.token'],
  async run(args, deps) {
    let input: MergeInputs | undefined;
    const read = async (c: HarnessConfig) => {
      input = await readMergeInputs(args, c, deps);
      return input.problems;
    };
    const config = await commandConfig(args, deps, read);
    return mergeCommand(args, config, deps, input!);
  },
};
