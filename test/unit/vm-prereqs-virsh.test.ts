// The e2e and VM tiers' "no domain left" assertions read libvirt through domainsMatching / volumesMatching: when virsh
// cannot be asked they must throw (so the assertion fails), and when it answers they return the matching lines. A
// fake `virsh` first on PATH stands in for libvirt; nothing real is asked.
import t, { type Test } from 'tap';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { domainsMatching, volumesMatching } from '../helpers/vm-prereqs.js';

/** PATH with a fake virsh (the shell `body`) in front, for the rest of test `t`. */
function fakeVirsh(t: Test, body: string): void {
  const dir = t.testdir({});
  const bin = join(dir, 'virsh');
  writeFileSync(bin, `#!/bin/sh\n${body}\n`);
  chmodSync(bin, 0o755);
  const before = process.env['PATH'];
  process.env['PATH'] = `${dir}:${before ?? ''}`;
  t.teardown(() => {
    process.env['PATH'] = before;
  });
}

t.test('virsh exits non-zero: both throw, naming the command and its error', async (t) => {
  fakeVirsh(t, 'echo "error: failed to connect to the hypervisor" >&2; exit 1');
  t.throws(
    () => domainsMatching('nrh-'),
    /virsh list --all --name could not be asked \(exit 1\): error: failed to connect/,
  );
  t.throws(() => volumesMatching('nrh-'), /virsh vol-list default could not be asked \(exit 1\)/);
});

t.test('virsh missing from PATH: throws', async (t) => {
  const before = process.env['PATH'];
  process.env['PATH'] = t.testdir({});
  t.teardown(() => {
    process.env['PATH'] = before;
  });
  t.throws(() => domainsMatching('nrh-'), /virsh list --all --name could not be asked/);
});

t.test('virsh answers: the lines naming the needle, an empty list when none does', async (t) => {
  fakeVirsh(t, 'printf "nrh-abc_client\\nother\\nnrh-abc_server\\n\\n"');
  t.same(domainsMatching('nrh-abc'), ['nrh-abc_client', 'nrh-abc_server']);
  t.same(domainsMatching('nrh-zzz'), [], 'nothing matches: an answer, not an error');
});
