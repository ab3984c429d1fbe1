// A failed run against the STAND-INS (Nomad API stand-in + stand-in lab, no VMs) leaves evidence a person can
// read: artifacts, a JUnit that links them, an HTML timeline that Chromium renders, and a repro command that
// re-runs the same scenario with the same inputs.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../../lib/cli/main.js';
import { parseCli } from '../helpers/cli-parse.js';
import { standIn } from '../helpers/stand-in-env.js';

const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const isolate = process.getuid?.() === 0 && spawnSync('unshare', ['--net', 'true']).status === 0;

t.test('a failed stand-in run: artifacts, linked JUnit, HTML timeline in Chromium, repro command', async (t) => {
  const dir = t.testdir({ 'nomad-build': 'stand-in build bytes\n' });
  const s = await standIn('duplicate-ip', { cwd: dir });
  t.teardown(() => s.nomad.close());
  const reports = join(dir, 'reports');
  const args = [
    'run',
    'bridge-exec-reboot',
    '--nomad-binary',
    'nomad-build',
    '--reports-dir',
    reports,
    '--netns',
    '',
    '--reboot',
    'hard',
    '--expect',
    'unique-ips=pass',
  ];
  t.equal(await main(args, s.deps), 1, 'the duplicate-IP failure fails the run');
  const [runId] = readdirSync(reports);
  const runDir = join(reports, runId!);

  // artifacts
  for (const f of [
    'alloc-before.json',
    'alloc-after.json',
    'task-events.json',
    'client-nomad-journal.log',
    'node-after.json',
    'junit.xml',
    'summary.json',
    'report.html',
    'repro.sh',
  ]) {
    t.ok(existsSync(join(runDir, f)), `${f} written`);
  }
  t.match(
    readFileSync(join(runDir, 'task-events.json'), 'utf8'),
    /duplicate allocation is not allowed/,
    'the recorded event history holds the failure',
  );

  // JUnit links every artifact, and every link resolves
  const junit = readFileSync(join(runDir, 'junit.xml'), 'utf8');
  const links = [...junit.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);
  t.ok(
    links.some((l) => l.endsWith('task-events.json')),
    'JUnit links the task events',
  );
  for (const l of links)
    t.ok(existsSync(join(runDir, l)), `attachment ${l} exists, relative to the JUnit file's folder`);
  t.ok(
    links.every((l) => !l.startsWith('/')),
    'relative paths (GitLab resolves them from the JUnit file)',
  );

  // HTML timeline, rendered by Chromium when it is installed
  const html = join(runDir, 'report.html');
  if (!existsSync(CHROMIUM))
    t.pass(`SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium), HTML not rendered`, { skip: true });
  else {
    const argv = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-proxy-server',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
      `--user-data-dir=${join(dir, 'profile')}`,
      '--dump-dom',
      pathToFileURL(html).href,
    ];
    const [cmd, full] = isolate ? ['unshare', ['--net', CHROMIUM, ...argv]] : [CHROMIUM, argv];
    const dom = execFileSync(cmd, full, {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 32 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: dir },
    });
    t.match(dom, /FAIL/, 'the verdict');
    t.match(dom, /duplicate allocation is not allowed/, 'the failure message');
    for (const lane of ['host', 'node', 'alloc']) t.match(dom, new RegExp(`>${lane}<`), `lane ${lane}`);
    t.match(dom, /hard reboot requested/, 'the reboot is on the timeline');
  }

  // repro: the printed command re-runs the same scenario with the same inputs, naming the build by checksum
  const repro = readFileSync(join(runDir, 'repro.sh'), 'utf8');
  const sha = execFileSync('sha256sum', [join(dir, 'nomad-build')], { encoding: 'utf8' }).split(' ')[0]!;
  t.match(repro, sha, 'the build is named by its sha256');
  t.match(
    s.out.join(''),
    /re-run bridge-exec-reboot@1\.9\.7\/reboot=hard \(run \S+\) exactly/,
    'the command is printed too, naming the suite',
  );
  const line = repro.split('\n').find((l) => l.startsWith('cd '))!;
  const words = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  const rerun = words.slice(words.indexOf('run'));
  const parsed = parseCli(rerun);
  t.equal(parsed.positionals[0], 'bridge-exec-reboot');
  t.equal(parsed.values['nomad'], join(dir, 'nomad-build'), 'the build by absolute path');
  t.equal(parsed.values['reboot'], 'hard');
  t.same(parsed.values['expect'], ['unique-ips=pass']);
  t.equal(parsed.values['netns'], '');
  t.notOk(parsed.values['reports-dir'], 'output locations are not inputs');
  const again = await standIn('duplicate-ip', { cwd: dir });
  t.teardown(() => again.nomad.close());
  t.equal(
    await main([...rerun, '--reports-dir', join(dir, 'again')], again.deps),
    1,
    'the repro reproduces the same failure',
  );
});
