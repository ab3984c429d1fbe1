// Real network namespaces: currentNetns() and reexecInNetns() (needs root and iproute2).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { currentNetns, reexecInNetns, IN_NETNS_ENV } from '../../lib/lab/host.js';

const canNetns = (() => {
  if (process.getuid?.() !== 0) return 'needs root';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
    return true;
  } catch {
    return 'iproute2 (ip netns) not available';
  }
})();

t.test('reexecInNetns runs argv inside the namespace and forwards the exit code', { skip: canNetns === true ? false : canNetns }, async (t) => {
  const ns = `nrh-test-${process.pid}`;
  execFileSync('ip', ['netns', 'add', ns]);
  t.teardown(() => execFileSync('ip', ['netns', 'del', ns]));
  t.equal(currentNetns() === ns, false, 'this process is not in the new namespace');
  const dir = t.testdir({});
  const script = `${dir}/child.mjs`;
  const hostUrl = new URL('../../lib/lab/host.ts', import.meta.url).href;
  writeFileSync(script, `import { currentNetns } from ${JSON.stringify(hostUrl)};\nimport { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(`${dir}/out.json`)}, JSON.stringify({ ns: currentNetns(), env: process.env.${IN_NETNS_ENV} }));\nprocess.exit(7);\n`);
  const code = await reexecInNetns(ns, [process.execPath, '--import', 'tsx', script]);
  t.equal(code, 7);
  const { readFileSync } = await import('node:fs');
  t.same(JSON.parse(readFileSync(`${dir}/out.json`, 'utf8')), { ns, env: ns });
});

t.test('reexecInNetns reports a missing namespace as the child exit code', { skip: canNetns === true ? false : canNetns }, async (t) => {
  const code = await reexecInNetns('nrh-no-such-netns', [process.execPath, '-e', 'process.exit(0)']);
  t.not(code, 0);
});
