// Real network namespaces: currentNetns() and reexecInNetns() (needs root and iproute2).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { currentNetns, reexecInNetns, IN_NETNS_ENV } from '../../lib/lab/host/host.js';

const canNetns = (() => {
  if (process.getuid?.() !== 0) return 'needs root';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
    return true;
  } catch {
    return 'iproute2 (ip netns) not available';
  }
})();

t.test(
  'reexecInNetns runs argv inside the namespace and forwards the exit code',
  { skip: canNetns === true ? false : canNetns },
  async (t) => {
    const ns = `nrh-test-${process.pid}`;
    execFileSync('ip', ['netns', 'add', ns]);
    t.teardown(() => execFileSync('ip', ['netns', 'del', ns]));
    t.equal(currentNetns() === ns, false, 'this process is not in the new namespace');
    const dir = t.testdir({});
    const script = `${dir}/child.mjs`;
    const hostUrl = new URL('../../lib/lab/host/host.ts', import.meta.url).href;
    writeFileSync(
      script,
      `import { currentNetns } from ${JSON.stringify(hostUrl)};\nimport { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(`${dir}/out.json`)}, JSON.stringify({ ns: currentNetns(), env: process.env.${IN_NETNS_ENV} }));\nprocess.exit(7);\n`,
    );
    const code = await reexecInNetns(ns, [process.execPath, '--import', 'tsx', script]);
    t.equal(code, 7);
    const { readFileSync } = await import('node:fs');
    t.same(JSON.parse(readFileSync(`${dir}/out.json`, 'utf8')), { ns, env: ns });
  },
);

t.test(
  'reexecInNetns reports a missing namespace as the child exit code',
  { skip: canNetns === true ? false : canNetns },
  async (t) => {
    const code = await reexecInNetns('nrh-no-such-netns', [process.execPath, '-e', 'process.exit(0)']);
    t.not(code, 0);
  },
);

t.test(
  'reexecInNetns: a SIGTERM is forwarded and the child gets all the time its teardown takes (no SIGKILL 5 s later)',
  { skip: canNetns === true ? false : canNetns },
  async (t) => {
    // Note: the VM tier saw a SIGTERMed run exit 137 mid-teardown (execa SIGKILLed the re-run child after 5 s), its VM left
    const ns = `nrh-term-${process.pid}`;
    execFileSync('ip', ['netns', 'add', ns]);
    t.teardown(() => execFileSync('ip', ['netns', 'del', ns]));
    const dir = t.testdir({});
    const hostUrl = new URL('../../lib/lab/host/host.ts', import.meta.url).href;
    // the "CLI": on SIGTERM it takes 7 s to tear down, then exits 130 (as the real one does)
    writeFileSync(
      `${dir}/inner.mjs`,
      "process.on('SIGTERM', () => setTimeout(() => process.exit(130), 7000));\nconsole.log('ready');\nsetInterval(() => {}, 1000);\n",
    );
    // the outer process re-runs the "CLI" inside the namespace and exits with its code
    writeFileSync(
      `${dir}/outer.mjs`,
      `import { reexecInNetns } from ${JSON.stringify(hostUrl)};\nprocess.exit(await reexecInNetns(${JSON.stringify(ns)}, [process.execPath, ${JSON.stringify(`${dir}/inner.mjs`)}]));\n`,
    );
    const { spawn } = await import('node:child_process');
    const outer = spawn(process.execPath, ['--import', 'tsx', `${dir}/outer.mjs`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) =>
      outer.stdout.on('data', (b: Buffer) => b.toString().includes('ready') && resolve()),
    );
    const t0 = Date.now();
    outer.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => outer.once('exit', (c) => resolve(c)));
    t.equal(code, 130, 'the child finished its teardown and its exit code came through (137 = SIGKILLed)');
    t.ok(Date.now() - t0 >= 6500, `it was given the ${Math.round((Date.now() - t0) / 1000)} s it took`);
  },
);
