// A git repository laid out as hashicorp/nomad (go.mod, version/, nomad/structs/generate.sh, v1.9.3's GNUmakefile)
// and a `go` stand-in on its own PATH dir that answers the version question and then runs the given shell body:
// enough for `build git:<tree>` to plan and get as far as running go, with nothing compiled.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Make `<dir>/tree` (committed) and `<dir>/bin/go` whose every command but `go env` runs `goBody` (sh). */
export function nomadShapedTree(dir: string, goBody: string): { tree: string; bin: string } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const go = join(bin, 'go');
  writeFileSync(go, `#!/bin/sh\nif [ "$1" = env ]; then echo go1.26.8; exit 0; fi\n${goBody}\n`);
  chmodSync(go, 0o755);
  const tree = join(dir, 'tree');
  mkdirSync(join(tree, 'version'), { recursive: true });
  mkdirSync(join(tree, 'nomad', 'structs'), { recursive: true });
  writeFileSync(join(tree, 'go.mod'), 'module github.com/hashicorp/nomad\n\ngo 1.22\n');
  writeFileSync(join(tree, 'version', 'version.go'), 'package version\n');
  writeFileSync(join(tree, 'nomad', 'structs', 'generate.sh'), '#!/bin/sh\n');
  writeFileSync(join(tree, 'main.go'), 'package main\n\nfunc main() {}\n');
  // the recipe as a real tree states it (v1.9.3's GNUmakefile excerpt): the build must get as far as running go
  copyFileSync(
    fileURLToPath(new URL('../fixtures/builds/makefiles/v1.9.3.GNUmakefile', import.meta.url)),
    join(tree, 'GNUmakefile'),
  );
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: tree,
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'a tree shaped like Nomad');
  return { tree, bin };
}
