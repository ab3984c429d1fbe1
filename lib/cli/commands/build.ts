// `reboot-harness build <spec>...`: resolve Nomad builds into the cache and print their provenance.
import type { CliCommand } from '../command.js';
import { buildCommand, buildSpecProblems } from '../build.js';
import { commandConfig } from '../input.js';

export const build: CliCommand = {
  name: 'build',
  summary: 'resolve Nomad builds (release version, git:<dir>[@<ref>], path) into the cache and print their provenance',
  usage: [
    'reboot-harness build <spec>... [--json] [--releases-url <url>] [--releases-key <file>]',
    '',
    'Resolves each build spec without running a scenario and prints its path, sha256, version, revision and origin.',
    'A spec is a release version (1.9.7, 1.9.7+ent, latest: downloaded, SHA256SUMS signature and zip checksum',
    'verified, cached), a source tree git:<dir>[@<ref>] (HEAD with uncommitted changes, or a ref; built like a',
    'release, cached by commit), or the path of a linux/amd64 nomad binary (./1.9.3 is a file, 1.9.3 a version).',
    'Cache: ${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/builds. Details: docs/builds.md',
  ],
  exits:
    '0 every build resolved; 2 a bad spec, an unknown version, a checksum or signature that does not hold, a tree that is not Nomad; 3 the releases site unreachable or a compile failed; 70 harness bug; 130 interrupted',
  options: [],
  configFlags: [
    'json',
    {
      flag: 'quiet',
      doc: 'no progress lines on stderr (downloads, source builds); the result is printed all the same',
    },
    { flag: 'verbose', doc: 'also print every command a source build runs (git, go) with its exit code' },
    'releases-url',
    'releases-key',
  ],
  positionals: { what: 'build spec', complete: 'files' },
  reads: ['builds.', 'output.', 'nomad.token'],
  async run(args, deps) {
    const config = await commandConfig(args, deps, (c) => buildSpecProblems(args.positionals, c, deps));
    return buildCommand(args, config, deps);
  },
};
