// VM tier, orphan domains (lib/lab/host/orphans.ts): a lab's libvirt domains whose lab directory is gone are invisible
// to `destroy`'s directory scan (session 6 leaked four warm domains that way). Real libvirt, no boot: domains defined
// the way vagrant-libvirt leaves them (its `Source: <dir>/Vagrantfile` description, a qcow2 volume in the default
// pool), one parked with an internal snapshot like a warm lab, one running (SeaBIOS finds no boot disk and waits),
// one whose directory still exists (another work dir's lab: it must stay). `destroy --all` through the real CLI.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli-child.js';
import { domainsMatching, vmSkipReason, volumesMatching } from '../helpers/vm-prereqs.js';
import { ensureLabHost } from '../../lib/lab/host/host.js';
import { deadlineIn } from '../../lib/time/deadlines.js';

const skip = vmSkipReason();
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';
const virsh = (...args: string[]) =>
  execFileSync('virsh', ['-c', 'qemu:///system', ...args], { encoding: 'utf8', timeout: 60_000 }).trim();
const quiet = (...args: string[]) => {
  try {
    return virsh(...args);
  } catch {
    return undefined;
  }
};

/** A domain as vagrant-libvirt defines one from `dir`, with a 16 MiB qcow2 volume of its own in the default pool. */
function defineDomain(name: string, dir: string): void {
  virsh('vol-create-as', 'default', `${name}.img`, '16M', '--format', 'qcow2');
  const path = virsh('vol-path', `${name}.img`, '--pool', 'default');
  const xml = join(tmpdir(), `${name}.xml`);
  writeFileSync(
    xml,
    `<domain type='qemu'>
  <name>${name}</name>
  <description>Source: ${dir}/Vagrantfile</description>
  <memory unit='MiB'>64</memory>
  <os><type arch='x86_64'>hvm</type></os>
  <devices>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='${path}'/><target dev='vda' bus='virtio'/></disk>
  </devices>
</domain>
`,
  );
  virsh('define', xml);
  rmSync(xml);
}

t.test(
  'destroy --all removes the domains of labs whose directory is gone, with snapshots and volumes; nothing else',
  { skip: skip ?? false, timeout: 10 * 60_000 },
  async (t) => {
    await ensureLabHost({ netns: NETNS, deadline: deadlineIn(4 * 60_000) });
    if (!quiet('pool-info', 'default')) {
      // Note: vagrant-libvirt makes this pool on its first `up`; a fresh host may not have it yet
      mkdirSync('/var/lib/libvirt/images', { recursive: true });
      virsh('pool-define-as', 'default', 'dir', '--target', '/var/lib/libvirt/images');
      virsh('pool-start', 'default');
    }
    const root = mkdtempSync(join(tmpdir(), 'nrh-orphans-'));
    const tag = Date.now().toString(16).slice(-12).padStart(12, '0');
    const warmId = `warm-${tag}dead`;
    const runId = `r${Date.now().toString(36).slice(-5)}${tag.slice(-8)}`;
    const keptId = `warm-${tag}beef`;
    const [warmDom, runDom, keptDom] = [`${warmId}-client`, `${runId}-server`, `${keptId}-client`];
    t.teardown(() => {
      for (const d of [warmDom, runDom, keptDom]) {
        quiet('destroy', d);
        for (const s of (quiet('snapshot-list', d, '--name') ?? '').split('\n').filter(Boolean))
          quiet('snapshot-delete', d, s);
        quiet('undefine', d, '--remove-all-storage');
        quiet('vol-delete', `${d}.img`, '--pool', 'default');
      }
      rmSync(root, { recursive: true, force: true });
    });
    // The lab dirs as a run writes them; two of them then deleted (by hand, or by a test runner removing its temp dir)
    for (const id of [warmId, runId, keptId]) {
      mkdirSync(join(root, id), { recursive: true });
      writeFileSync(join(root, id, 'lab-spec.json'), '{}');
    }
    defineDomain(warmDom, join(root, warmId));
    virsh('snapshot-create-as', warmDom, 'nrh-warm', '--description', 'nomad-reboot-harness warm lab');
    defineDomain(runDom, join(root, runId));
    virsh('start', runDom);
    defineDomain(keptDom, join(root, keptId));
    rmSync(join(root, warmId), { recursive: true });
    rmSync(join(root, runId), { recursive: true });
    t.equal(virsh('domstate', runDom), 'running', "the cold run's orphan runs");
    t.match(virsh('snapshot-list', warmDom, '--name'), /^nrh-warm$/m, 'the warm orphan has its snapshot');
    t.equal(
      virsh('desc', warmDom),
      `Source: ${join(root, warmId)}/Vagrantfile`,
      'the description as vagrant-libvirt writes it',
    );

    const work = join(root, 'work');
    const r = await runCli(t, ['destroy', '--all', '--netns', NETNS, '--work-dir', work]);
    t.equal(r.code, 0, 'destroy --all');
    t.match(r.stderr, `destroyed orphan domain ${warmDom} (its lab directory ${join(root, warmId)} is gone)`);
    t.match(r.stderr, `destroyed orphan domain ${runDom} (its lab directory ${join(root, runId)} is gone)`);
    t.same(domainsMatching(warmId), [], 'the warm orphan is gone');
    t.same(domainsMatching(runId), [], 'the running orphan is gone');
    t.same(volumesMatching(warmId), [], 'with its volume');
    t.same(volumesMatching(runId), [], 'with its volume');
    t.same(domainsMatching(keptId), [keptDom], 'a lab whose directory exists stays');
    t.same(volumesMatching(keptId).length, 1, 'and its volume');
    t.notMatch(r.stderr, keptDom);
  },
);
