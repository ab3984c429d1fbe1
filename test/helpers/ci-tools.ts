// Where the CI-template tests find their validators: actionlint (a Go tool, `go install` in .ci/run) and the JSON
// schemas SchemaStore publishes for workflows, as vendored by the PyPI package check-jsonschema (pip in .ci/run).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** actionlint's path (env ACTIONLINT, PATH, then Go's bin folder), or a reason it is missing. */
export function findActionlint(): { path: string } | { missing: string } {
  const candidates = [
    process.env['ACTIONLINT'],
    'actionlint',
    join(process.env['GOPATH'] ?? join(homedir(), 'go'), 'bin', 'actionlint'),
  ];
  for (const c of candidates.filter((x): x is string => !!x)) {
    try {
      execFileSync(c, ['-version'], { stdio: 'ignore' });
      return { path: c };
    } catch {
      // try the next place
    }
  }
  return {
    missing:
      'actionlint is not installed (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12; .ci/run does it)',
  };
}

/** check-jsonschema's vendored schema folder (env CHECK_JSONSCHEMA_VENDOR, else python3's install), or why not. */
export function findVendoredSchemas(): { dir: string } | { missing: string } {
  const fromEnv = process.env['CHECK_JSONSCHEMA_VENDOR'];
  let dir = fromEnv;
  if (!dir) {
    try {
      const code =
        "import importlib.util as u; s = u.find_spec('check_jsonschema'); " +
        "print(s.submodule_search_locations[0] if s else '')";
      const pkg = execFileSync('python3', ['-c', code], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      dir = pkg ? join(pkg, 'builtin_schemas', 'vendor') : undefined;
    } catch {
      dir = undefined;
    }
  }
  const need = ['github-workflows.json', 'gitlab-ci.json'];
  if (dir && need.every((f) => existsSync(join(dir!, f)))) return { dir };
  return {
    missing:
      "check-jsonschema's vendored schemas are not installed (pip install check-jsonschema==0.39.0; .ci/run does it)" +
      (dir ? `: looked in ${dir}` : ''),
  };
}
