// The CI run after `npm ci` (.ci/run starts it): host packages and the box, the CI-template validators, the README's
// test command (`npm test`: type-check + unit + integration + VM tiers) into reports/ci-test.log, the lab host torn
// down, and one closing line `N passed, N failed, N skipped`. Exit code: npm test's. A failed set-up is not a CI
// failure: the VM tier then skips with its reason.
import { $, fs, path } from 'zx';
import { isMain, probe, runScript, tsxCommand, type Script } from '../tools/steps.js';

/** Pinned validators; each test skips with its reason when its validator is missing: a failed install shows there. */
const ACTIONLINT_VERSION = 'v1.7.12';
const CHECK_JSONSCHEMA_VERSION = '0.39.0';

/** One plain closing line from tap's summary `# { total: N, pass: N, fail: N, skip: N }` (the last one). Pure. */
export function summaryLine(log: string): string {
  const summary = [...log.matchAll(/^# \{ total: .*$/gm)].at(-1)?.[0] ?? '';
  const num = (k: string) => Number(new RegExp(`\\b${k}: (\\d+)`).exec(summary)?.[1] ?? 0);
  return `${num('pass')} passed, ${num('fail')} failed, ${num('skip')} skipped`;
}

/**
 * What failed, from the TAP log, for the end of the CI output (a CI page often shows only the tail): one line per
 * failed assertion with the subtests it sits in, then the first lines of its YAML diagnostic; a subtest that failed
 * with no failed assertion of its own (a crash, a timeout, a bad plan) is named too. Pure.
 */
export function failureDigest(log: string, maxDiagLines = 8): string[] {
  const lines = log.split('\n');
  const stack: { indent: number; name: string; failedInside: boolean }[] = [];
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const sub = /^( *)# Subtest: (.*)$/.exec(line);
    if (sub) {
      stack.push({ indent: sub[1]!.length, name: sub[2]!, failedInside: false });
      continue;
    }
    const res = /^( *)(not ok|ok) \d+ - (.*?)(?: # (?:time=|SKIP|TODO).*)?$/.exec(line);
    if (!res) continue;
    const indent = res[1]!.length;
    const failed = res[2] === 'not ok';
    const name = res[3]!;
    const top = stack.at(-1);
    const closes = top !== undefined && top.indent === indent && top.name === name;
    if (closes) stack.pop();
    if (!failed) continue;
    if (closes && top.failedInside) {
      const parent = stack.at(-1);
      if (parent) parent.failedInside = true;
      continue;
    }
    for (const s of stack) s.failedInside = true;
    const diag: string[] = [];
    if (lines[i + 1]?.trim() === '---') {
      for (let j = i + 2; j < lines.length && lines[j]!.trim() !== '...'; j++) diag.push(lines[j]!.trimEnd());
    }
    const { where, kept } = digestDiagnostic(diag);
    out.push(`not ok: ${[...stack.map((s) => s.name), name].join(' > ')}${where ? ` (${where})` : ''}`);
    const cut = kept.slice(0, maxDiagLines);
    out.push(...cut.map((l) => `    ${l}`));
    if (kept.length > cut.length) out.push(`    (${kept.length - cut.length} more lines in reports/ci-test.log)`);
  }
  return out;
}

/** Tap's YAML diagnostic without what a digest does not need (stack, source excerpt, how tap ran the file). Pure. */
function digestDiagnostic(diag: string[]): { where: string; kept: string[] } {
  const pad = Math.min(...diag.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  const body = diag.map((l) => l.slice(Number.isFinite(pad) ? pad : 0));
  const file = body.find((l) => /^ +fileName: /.test(l))?.split(': ')[1];
  const lineNo = body.find((l) => /^ +lineNumber: /.test(l))?.split(': ')[1];
  const dropped = new Set(['at', 'stack', 'source', 'stdio', 'cwd', 'externalID', 'command', 'args']);
  const kept: string[] = [];
  let keep = true;
  for (const l of body) {
    const key = /^([A-Za-z]+):/.exec(l)?.[1];
    if (key !== undefined) keep = !dropped.has(key);
    if (keep && l.trim()) kept.push(l);
  }
  return { where: file && lineNo ? `${file}:${lineNo}` : '', kept };
}

/** actionlint from the Go module proxy (with shellcheck from Debian it also lints the workflow's scripts). */
async function actionlint(s: Script, env: NodeJS.ProcessEnv): Promise<void> {
  // shellcheck (Debian): actionlint runs it on the workflow's scripts when present; the fetch script is checked too.
  if (!(await probe`apt-get install -y --no-install-recommends shellcheck`).ok) s.say('shellcheck not installed');
  const go = (await probe`command -v go`).stdout.trim() || '/usr/local/go/bin/go';
  const installed = await probe`${go} install ${`github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}`}`;
  if (!installed.ok) {
    s.say(`actionlint ${ACTIONLINT_VERSION} not installed (needs Go): the workflow lint test will skip`);
    return;
  }
  env['ACTIONLINT'] = path.join((await probe`${go} env GOPATH`).stdout.trim(), 'bin', 'actionlint');
}

/** check-jsonschema in a venv of its own (Debian's python3 is externally managed); its vendored schemas are read. */
async function checkJsonschema(s: Script, env: NodeJS.ProcessEnv): Promise<void> {
  const cache = process.env['XDG_CACHE_HOME'] || path.join(process.env['HOME'] || '/root', '.cache');
  const venv = path.join(cache, 'nomad-reboot-harness', 'ci-venv');
  if (!(await probe`python3 -m venv ${venv}`).ok) {
    if ((await probe`apt-get install -y --no-install-recommends python3-venv`).ok) await probe`python3 -m venv ${venv}`;
  }
  const pip = path.join(venv, 'bin', 'pip');
  const ok =
    (await fs.pathExists(pip)) &&
    (await probe`${pip} install -q --no-deps ${`check-jsonschema==${CHECK_JSONSCHEMA_VERSION}`}`).ok;
  if (!ok) {
    s.say(`check-jsonschema ${CHECK_JSONSCHEMA_VERSION} not installed: the template schema test will skip`);
    return;
  }
  const where = "import importlib.util as u; print(u.find_spec('check_jsonschema').submodule_search_locations[0])";
  const pkg = (await probe`${path.join(venv, 'bin', 'python')} -c ${where}`).stdout.trim();
  env['CHECK_JSONSCHEMA_VENDOR'] = path.join(pkg, 'builtin_schemas', 'vendor');
}

/** `npm test 2>&1 | tee reports/ci-test.log`: shown live and kept; its exit code. */
async function npmTest(env: NodeJS.ProcessEnv, logFile: string): Promise<{ code: number; log: string }> {
  await fs.ensureDir(path.dirname(logFile));
  const file = fs.createWriteStream(logFile);
  const p = $({ env, quiet: true, nothrow: true })`npm test 2>&1`;
  p.stdout.on('data', (d: Buffer) => {
    process.stdout.write(d);
    file.write(d);
  });
  const r = await p;
  await new Promise<void>((done) => file.end(done));
  return { code: r.exitCode ?? 1, log: await fs.readFile(logFile, 'utf8') };
}

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// Note: .ci/run sets NRH_STEPS_STARTED_MS before `npm ci`, so the step times here and in vms/setup-host.ts count
// from the start of the whole CI run.
if (isMain(import.meta.url))
  await runScript('ci', async (s) => {
    process.chdir(root);
    Object.assign(process.env, { CI: process.env['CI'] || 'true', DEBIAN_FRONTEND: 'noninteractive' });
    Object.assign(process.env, { VAGRANT_CHECKPOINT_DISABLE: '1' });
    const env: NodeJS.ProcessEnv = { ...process.env };

    await s.step('host packages and the offline box (vms/setup-host.ts)', async () => {
      const r = await $({ nothrow: true })`${tsxCommand('vms/setup-host.ts')}`;
      if (!r.ok) s.say(`setup-host failed (exit ${r.exitCode}): the VM tier will skip with its reason`);
    });
    await s.step('shells for the completion test: zsh and fish (Debian)', async () => {
      if (!(await probe`apt-get install -y --no-install-recommends zsh fish`).ok)
        s.say('zsh/fish not installed: the completion test skips those shells with its reason');
    });
    const validators = 'validators for the CI-template tests: actionlint (Go module proxy), check-jsonschema (PyPI)';
    await s.step(validators, async () => {
      await actionlint(s, env);
      await checkJsonschema(s, env);
    });
    const { code, log } = await s.step("npm test (its exit code is this run's; log: reports/ci-test.log)", () =>
      npmTest(env, path.join(root, 'reports', 'ci-test.log')),
    );
    s.say(`npm test exited ${code}`);
    await s.step('tear down the lab host this run started (libvirtd, netns)', async () => {
      await $({ nothrow: true })`${process.execPath} bin/reboot-harness.js destroy --all --host`;
    });
    const failures = failureDigest(log);
    if (failures.length > 0) console.log(['what failed (whole log: reports/ci-test.log):', ...failures].join('\n'));
    console.log(summaryLine(log));
    s.say(`done (exit ${code})`);
    return code;
  });
