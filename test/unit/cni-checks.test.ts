import t from 'tap';
import { judgeAll } from '../../lib/checks/define.js';
import { withBothAdds, type CniProbeRun, type CniRebootEvidence } from '../../lib/checks/cni-probe.js';
import { CHECKS } from '../../scenarios/cni-ipam-reboot.js';
import type { CniOutcome } from '../../lib/parse/cni-result.js';

const ID = '6f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const ok = (ip: string): CniOutcome => ({ ok: true, ips: [ip], exitCode: 0 });
const dup = (ip: string, id = ID): CniOutcome => ({
  ok: false,
  code: 999,
  msg: `failed to allocate for range 0: ${ip} has been allocated to ${id}, duplicate allocation is not allowed`,
  details: '',
  exitCode: 1,
  stderr: '',
});
const state = (dir: string, files: Record<string, string> | undefined) => ({
  dir,
  exists: files !== undefined,
  files: files ?? {},
});

function run(
  mode: 'persistent' | 'tmpfs',
  second: CniOutcome | undefined,
  first: CniOutcome | undefined = ok('172.26.64.2/20'),
): CniProbeRun {
  const dir = mode === 'persistent' ? '/var/lib/cni/networks/nomad' : '/var/run/cni/nomad';
  return {
    mode,
    stateDir: dir,
    containerId: ID,
    first,
    second,
    stateBefore: state(dir, { '172.26.64.2': `${ID}\r\neth0` }),
    stateAfter: state(dir, mode === 'persistent' ? { '172.26.64.2': `${ID}\r\neth0` } : undefined),
  };
}
const ev = (runs: CniProbeRun[], before = 'boot-a', after = 'boot-b'): CniRebootEvidence => ({
  bootIdBefore: before,
  bootIdAfter: after,
  runs,
});
const cniChecks = (e: CniRebootEvidence) => judgeAll(CHECKS, e);
const byId = (e: CniRebootEvidence) => Object.fromEntries(cniChecks(e).map((c) => [c.id, c]));

t.test('the expected outcomes pass: persistent -> duplicate error, tmpfs -> clean ADD', async (t) => {
  const c = byId(ev([run('persistent', dup('172.26.64.2')), run('tmpfs', ok('172.26.64.2/20'))]));
  t.equal(c['host-rebooted']!.status, 'passed');
  t.equal(c['persistent-state-duplicate']!.status, 'passed');
  t.match(c['persistent-state-duplicate']!.message, /172\.26\.64\.2 is still reserved for 6f0c1a2b/);
  t.ok(
    c['persistent-state-duplicate']!.evidence.some((l) =>
      l.includes('"6f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b\\r\\neth0"'),
    ),
    'state file content shown with CRLF',
  );
  t.equal(c['tmpfs-state-clean']!.status, 'passed');
  t.match(c['tmpfs-state-clean']!.evidence.join('\n'), /state after reboot: \/var\/run\/cni\/nomad absent/);
});

t.test(
  'persistent-state-duplicate fails when the re-ADD succeeds, fails differently, or names another container',
  async (t) => {
    t.match(byId(ev([run('persistent', ok('172.26.64.3/20'))]))['persistent-state-duplicate'], {
      status: 'failed',
      message: /succeeded \(172\.26\.64\.3\/20\): the persistent state did not block it/,
    });
    const other: CniOutcome = {
      ok: false,
      code: 999,
      msg: 'failed to allocate for range 0: requested IP address 172.26.64.2 is not available in range set 172.26.64.1-172.26.79.254',
      details: '',
      exitCode: 1,
      stderr: '',
    };
    t.match(byId(ev([run('persistent', other)]))['persistent-state-duplicate'], {
      status: 'failed',
      message: /a different error: .*requested IP address/,
    });
    t.match(byId(ev([run('persistent', dup('172.26.64.2', 'someone-else'))]))['persistent-state-duplicate'], {
      status: 'failed',
      message: /names someone-else, not this container/,
    });
    t.match(byId(ev([run('persistent', undefined)]))['persistent-state-duplicate'], {
      status: 'failed',
      message: /was not run/,
    });
    t.match(byId(ev([run('persistent', dup('172.26.64.2'), dup('172.26.64.2'))]))['persistent-state-duplicate'], {
      status: 'failed',
      message: /first ADD did not succeed/,
    });
  },
);

t.test('tmpfs-state-clean fails when the re-ADD hits the duplicate error', async (t) => {
  const c = byId(ev([run('tmpfs', dup('172.26.64.2'))]))['tmpfs-state-clean']!;
  t.equal(c.status, 'failed');
  t.match(c.message, /failed: .*duplicate allocation is not allowed/);
});

t.test('withBothAdds judges only a probe whose first ADD succeeded and whose second ran, else says why', async (t) => {
  const asked: string[] = [];
  const judge = withBothAdds(
    'tmpfs',
    'on tmpfs',
  )((p) => {
    asked.push(`${p.run.mode} ${p.first.ips.join(',')}`);
    return { status: 'passed', message: 'judged', evidence: p.ev };
  });
  t.match(judge(ev([run('persistent', ok('172.26.64.3/20'))])), {
    status: 'failed',
    message: 'no probe with state on tmpfs was run',
  });
  t.match(judge(ev([run('tmpfs', ok('172.26.64.2/20'), dup('172.26.64.2'))])), {
    status: 'failed',
    message: /first ADD did not succeed/,
  });
  t.match(judge(ev([run('tmpfs', undefined)])), { status: 'failed', message: /ADD after the reboot was not run/ });
  t.same(asked, [], 'the judge is not asked about a probe that proves nothing');
  const both = judge(ev([run('persistent', dup('172.26.64.2')), run('tmpfs', dup('172.26.64.2'))]));
  t.match(both, { status: 'passed', message: 'judged' });
  t.ok(
    both.evidence?.some((l) => l.startsWith('ADD after reboot:')),
    "the probe's evidence lines are handed over",
  );
  t.same(asked, ['tmpfs 172.26.64.2/20'], 'asked once, about the probe of its own mode');
});

t.test('host-rebooted fails without a boot id change', async (t) => {
  t.match(byId(ev([], 'same', 'same'))['host-rebooted'], { status: 'failed', message: /did not change/ });
  t.match(byId(ev([], '', 'x'))['host-rebooted'], { status: 'failed', message: /not observed/ });
});

t.test(
  'recorded on a real client VM across a real reboot (bridge + host-local 1.1.1, Debian bookworm guest)',
  async (t) => {
    const { readFileSync } = await import('node:fs');
    const { parseProbeOutput } = await import('../../lib/parse/cni-result.js');
    const { parseCniListing } = await import('../../lib/cluster/parse-cni-listing.js');
    const f = (n: string) => readFileSync(new URL(`../fixtures/cni/vm-${n}.txt`, import.meta.url), 'utf8');
    const before = parseCniListing(f('listing-before-reboot'));
    const after = parseCniListing(f('listing-after-reboot'));
    const pick = (l: typeof before, d: string) => l.find((x) => x.dir === d);
    const P = 'aaaaaaaa-1111-4111-8111-000000000001';
    const T = 'bbbbbbbb-2222-4222-8222-000000000002';
    const p = '/var/lib/cni/networks/nomad';
    const tm = '/var/run/cni/nomad';
    const e: CniRebootEvidence = {
      bootIdBefore: '26dffb2e-355b-44d7-b658-22514c2783ab',
      bootIdAfter: '2bbd2049-222f-4cda-9a6c-4105a0af205d',
      runs: [
        {
          mode: 'persistent',
          stateDir: p,
          containerId: P,
          first: parseProbeOutput(f('add-persistent-before')),
          second: parseProbeOutput(f('add-persistent-after')),
          stateBefore: pick(before, p),
          stateAfter: pick(after, p),
        },
        {
          mode: 'tmpfs',
          stateDir: tm,
          containerId: T,
          first: parseProbeOutput(f('add-tmpfs-before')),
          second: parseProbeOutput(f('add-tmpfs-after')),
          stateBefore: pick(before, tm),
          stateAfter: pick(after, tm),
        },
      ],
    };
    t.same(pick(after, p)?.files['172.26.64.2'], `${P}\r\neth0`, 'persistent state survived the reboot byte for byte');
    t.equal(pick(after, tm)?.exists, false, 'tmpfs state is gone after the reboot');
    t.same(
      cniChecks(e).map((c) => [c.id, c.status]),
      CHECKS.map((c) => [c.id, 'passed']),
      'every check of the scenario passes on the real data',
    );
    // swap the modes: the same real data must now fail both checks
    const swapped = {
      ...e,
      runs: e.runs.map((r) => ({ ...r, mode: r.mode === 'persistent' ? ('tmpfs' as const) : ('persistent' as const) })),
    };
    t.same(
      cniChecks(swapped)
        .slice(1)
        .map((c) => c.status),
      ['failed', 'failed'],
    );
  },
);
