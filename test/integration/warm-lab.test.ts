// Warm labs without VMs (lib/lab/warm/warm-lab.ts, lib/cli/destroy.ts): a stand-in for libvirt and Vagrant answers the real
// argv of `virsh` and `vagrant` (the commands the harness runs) from an in-memory model of domains, snapshots and
// networks, because real libvirt domains need the VM tier (test/vm/warm-lab.test.ts runs the same paths for real).
// The files (warm.json, lab-spec.json, lock files, the build) are real.
import t from 'tap';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS, type HarnessConfig } from '../../lib/config/schema.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { destroyLabs } from '../../lib/cli/destroy.js';
import { labSpecFor } from '../../lib/lab/vagrant/spec-for.js';
import { openWarmLab, warmInputsFor } from '../../lib/lab/vagrant/vagrant-warm.js';
import { readWarmRecord, warmLockPath } from '../../lib/lab/warm/warm-lab.js';
import { warmKey, warmLabId } from '../../lib/lab/warm/warm-key.js';
import type { LogEvent } from '../../lib/log/events.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { VAGRANTFILE } from '../../lib/lab/vagrant/vagrant-provider.js';

interface Dom {
  state: 'running' | 'paused' | 'shut off';
  snapshots: Set<string>;
  desc?: string;
}

/** The stand-in: virsh and vagrant argv against a model; every call recorded. */
function standIn() {
  const domains = new Map<string, Dom>();
  const networks = new Map<string, boolean>();
  const calls: string[] = [];
  const ok = (stdout = '') => ({ code: 0, stdout, stderr: '', durationMs: 1 });
  const fail = (stderr: string) => ({ code: 1, stdout: '', stderr, durationMs: 1 });
  const run: RunCommand = async (file, args, opts) => {
    calls.push([file, ...args].join(' '));
    const allowed = opts.allowedCodes ?? [0];
    const answer = (r: ReturnType<typeof ok>) => {
      if (!allowed.includes(r.code)) throw new Error(`${file} ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r;
    };
    if (file === 'vagrant') {
      const spec = JSON.parse(readFileSync(join(opts.cwd!, 'lab-spec.json'), 'utf8')) as {
        machines: { name: string }[];
      };
      // Note: vagrant-libvirt's default description names the Vagrantfile the domain came from
      if (args[0] === 'up')
        for (const m of spec.machines)
          domains.set(m.name, { state: 'running', snapshots: new Set(), desc: `Source: ${opts.cwd}/Vagrantfile` });
      if (args[0] === 'destroy')
        for (const m of spec.machines) if (!domains.get(m.name)?.snapshots.size) domains.delete(m.name);
      // Note: no machine named (`ssh-config --machine-readable`): every machine's block, as Vagrant prints them
      if (args[0] === 'ssh-config')
        return answer(
          ok(
            spec.machines
              .filter((m) => args[1]?.startsWith('--') || m.name === args[1])
              .map(
                (m) =>
                  `Host ${m.name}\n  HostName 10.198.0.50\n  User vagrant\n  Port 22\n  IdentityFile /nonexistent/key\n`,
              )
              .join('\n'),
          ),
        );
      return answer(ok());
    }
    const [cmd, name, ...rest] = args.slice(2);
    const d = name === undefined ? undefined : domains.get(name);
    switch (cmd) {
      case 'domstate':
        return answer(d ? ok(`${d.state}\n\n`) : fail(`error: failed to get domain '${name}'`));
      case 'snapshot-list':
        return answer(
          d
            ? ok([...d.snapshots].map((s) => ` ${s}\n`).join('') + '\n')
            : fail(`error: failed to get domain '${name}'`),
        );
      case 'suspend':
        d!.state = 'paused';
        return answer(ok());
      case 'resume':
        d!.state = 'running';
        return answer(ok());
      case 'snapshot-create-as':
        d!.snapshots.add(rest[0]!);
        return answer(ok());
      case 'snapshot-delete':
        d!.snapshots.delete(rest[0]!);
        return answer(ok());
      case 'destroy':
        d!.state = 'shut off';
        return answer(ok());
      case 'undefine':
        if (d?.snapshots.size) return answer(fail('cannot undefine domain with snapshots'));
        domains.delete(name!);
        return answer(ok());
      case 'net-info':
        return answer(
          networks.has(name!)
            ? ok(`Name: ${name}\nActive:         ${networks.get(name!) ? 'yes' : 'no'}\n`)
            : fail(
                `error: failed to get network '${name}'\nerror: Network not found: no network with matching name '${name}'`,
              ),
        );
      case 'list':
        return answer(ok([...domains.keys()].join('\n') + '\n'));
      case 'desc':
        return answer(
          !d
            ? fail(`error: failed to get domain '${name}'`)
            : ok(`${d.desc ?? `No description for domain: ${name}`}\n`),
        );
      case 'net-start':
        networks.set(name!, true);
        return answer(ok());
      default:
        return answer(fail(`stand-in virsh: ${args.join(' ')} not modelled`));
    }
  };
  return { run, domains, networks, calls };
}

const configIn = (work: string, nomad?: string): HarnessConfig => ({
  ...DEFAULTS,
  ...(nomad ? { nomadBinary: nomad } : {}),
  lab: { ...DEFAULTS.lab, workDir: work },
});

/** A warm lab directory as a finished run leaves it: spec, record with a snapshot, domains with the snapshot. */
async function warmLabOnDisk(
  s: ReturnType<typeof standIn>,
  config: HarnessConfig,
  nomad: boolean,
  o: { nomadPath?: string } = {},
) {
  const inputs = await warmInputsFor(config, { roles: ['client'], driver: 'qemu', vagrantfile: VAGRANTFILE, nomad });
  const key = warmKey(inputs);
  const id = warmLabId(key);
  const dir = join(config.lab.workDir, id);
  mkdirSync(dir, { recursive: true });
  const spec = labSpecFor(config, id, ['client'], 'qemu');
  writeFileSync(join(dir, 'lab-spec.json'), JSON.stringify(spec));
  const nomadPath = o.nomadPath ?? config.nomadBinary;
  writeFileSync(
    join(dir, 'warm.json'),
    JSON.stringify({
      key,
      inputs,
      createdAtMs: Date.now(),
      ...(nomadPath ? { nomadPath } : {}),
      snapshot: { atMs: Date.now(), tookMs: 1 },
    }),
  );
  for (const m of spec.machines)
    s.domains.set(m.name, { state: 'shut off', snapshots: new Set(['nrh-warm']), desc: `Source: ${dir}/Vagrantfile` });
  for (const n of [spec.privateNetwork.name, spec.libvirt.managementNetwork.name]) s.networks.set(n, true);
  return { id, dir, key, domain: spec.machines[0]!.name };
}

t.test('destroy --stale removes warm labs whose build is gone or whose domain is gone, nothing else', async (t) => {
  const root = t.testdir({ work: {}, 'nomad-a': 'build a', 'nomad-b': 'build b' });
  const work = join(root, 'work');
  const s = standIn();
  const current = await warmLabOnDisk(s, configIn(work, join(root, 'nomad-a')), true);
  const goneBuild = await warmLabOnDisk(
    s,
    { ...configIn(work, join(root, 'nomad-b')), lab: { ...configIn(work).lab, cpus: 2 } },
    true,
    { nomadPath: join(root, 'nomad-gone') },
  );
  const goneDomain = await warmLabOnDisk(
    s,
    { ...configIn(work), lab: { ...configIn(work).lab, memoryMb: 1024 } },
    false,
  );
  s.domains.delete(goneDomain.domain);
  mkdirSync(join(work, 'r1'));
  writeFileSync(join(work, 'r1', 'lab-spec.json'), JSON.stringify(labSpecFor(configIn(work), 'r1', ['client'])));
  const events: LogEvent[] = [];
  const code = await destroyLabs(configIn(work), [], false, (e) => void events.push(e), {
    sweep: { stale: true },
    vagrantfile: VAGRANTFILE,
    run: s.run,
  });
  t.equal(code, 0);
  const said = events.filter((e) => e.kind === 'info').map((e) => (e as { message: string }).message);
  t.ok(
    said.some((m) => m.startsWith(`destroyed lab ${goneBuild.id}`) && m.includes('its Nomad build file is gone')),
    'the gone build is named',
  );
  t.ok(
    said.some(
      (m) => m.startsWith(`destroyed lab ${goneDomain.id}`) && m.includes(`its domain ${goneDomain.domain} is gone`),
    ),
    'the gone domain is named',
  );
  t.notOk(existsSync(goneBuild.dir), "the stale lab's directory is gone");
  t.notOk(s.domains.has(goneBuild.domain), 'its domain is gone (snapshot deleted first, then undefined)');
  t.ok(
    s.calls.indexOf(`virsh -c qemu:///system snapshot-delete ${goneBuild.domain} nrh-warm`) <
      s.calls.indexOf(`virsh -c qemu:///system undefine ${goneBuild.domain} --remove-all-storage`),
  );
  t.ok(existsSync(current.dir), 'the current warm lab stays');
  t.ok(s.domains.has(current.domain), 'with its domain');
  t.ok(existsSync(join(work, 'r1')), "a run's lab is not a warm lab: --stale leaves it");
});

t.test(
  "destroy --all also removes orphan domains: a harness lab's whose directory is gone, nothing else",
  async (t) => {
    const root = t.testdir({ work: {}, elsewhere: {} });
    const work = join(root, 'work');
    const s = standIn();
    // a warm lab whose directory was removed by hand (session 6's leak: tap removed the test's work dir)
    const gone = await warmLabOnDisk(s, configIn(work), false);
    rmSync(gone.dir, { recursive: true });
    // a warm lab kept in another work dir, a cold run's domain whose dir is gone, and domains that are not the harness's
    const other = await warmLabOnDisk(s, configIn(join(root, 'elsewhere')), false);
    s.domains.set('r1abcd0123abcd-client', {
      state: 'running',
      snapshots: new Set(),
      desc: `Source: ${root}/tmp/r1abcd0123abcd/Vagrantfile`,
    });
    s.domains.set('myproject_default', {
      state: 'running',
      snapshots: new Set(),
      desc: `Source: ${root}/gone/myproject/Vagrantfile`,
    });
    s.domains.set('handmade', { state: 'shut off', snapshots: new Set() });
    s.domains.set('warm-0123456789abcdef-client', {
      state: 'shut off',
      snapshots: new Set(),
      desc: 'Source: /elsewhere/warm-fedcba9876543210/Vagrantfile',
    });
    const events: LogEvent[] = [];
    t.equal(
      await destroyLabs(configIn(work), [], true, (e) => void events.push(e), { vagrantfile: VAGRANTFILE, run: s.run }),
      0,
    );
    t.notOk(s.domains.has(gone.domain), 'the orphan warm domain is gone');
    t.ok(
      s.calls.indexOf(`virsh -c qemu:///system snapshot-delete ${gone.domain} nrh-warm`) <
        s.calls.indexOf(`virsh -c qemu:///system undefine ${gone.domain} --remove-all-storage`),
      'its snapshot deleted first',
    );
    t.notOk(s.domains.has('r1abcd0123abcd-client'), "the cold run's orphan too (powered off first)");
    t.ok(s.calls.includes('virsh -c qemu:///system destroy r1abcd0123abcd-client'));
    t.ok(s.domains.has(other.domain), 'a warm lab whose directory exists (another work dir) stays');
    t.ok(
      s.domains.has('myproject_default'),
      "a Vagrant domain of someone else's project stays, even with its dir gone",
    );
    t.ok(s.domains.has('handmade'), 'a domain without a description stays');
    t.ok(s.domains.has('warm-0123456789abcdef-client'), "a name that does not match its directory's id stays");
    t.ok(
      events.some(
        (e) =>
          e.kind === 'info' &&
          e.message ===
            `destroyed orphan domain ${gone.domain} (its lab directory ${gone.dir} is gone), with its snapshots and disks`,
      ),
    );

    // destroy of named run ids does not sweep
    s.domains.set('r1abcd0123abcd-client', {
      state: 'running',
      snapshots: new Set(),
      desc: `Source: ${root}/tmp/r1abcd0123abcd/Vagrantfile`,
    });
    mkdirSync(join(work, 'r2'), { recursive: true });
    writeFileSync(join(work, 'r2', 'lab-spec.json'), JSON.stringify(labSpecFor(configIn(work), 'r2', ['client'])));
    const fake = join(root, 'fake');
    mkdirSync(fake);
    const env = {
      PATH: `${new URL('../fixtures/fake-bin', import.meta.url).pathname}:${process.env['PATH']}`,
      FAKE_VAGRANT_MODE: 'dir',
      FAKE_VAGRANT_DIR: fake,
    };
    t.equal(
      await destroyLabs(configIn(work), ['r2'], false, () => undefined, {
        vagrant: { env, lockDir: root },
        run: s.run,
      }),
      0,
    );
    t.ok(s.domains.has('r1abcd0123abcd-client'), 'not swept by destroy <run id>');
    // libvirt not answering: the sweep is skipped with a warning, and the exit says it could not look
    const down: RunCommand = async (file, args, opts) => {
      if (file === 'virsh' && args.includes('list')) throw new Error('error: failed to connect to the hypervisor');
      return s.run(file, args, opts);
    };
    const warns: LogEvent[] = [];
    t.equal(
      await destroyLabs(configIn(work), [], true, (e) => void warns.push(e), { vagrantfile: VAGRANTFILE, run: down }),
      3,
    );
    t.ok(
      warns.some(
        (e) =>
          e.kind === 'warn' &&
          /could not look for orphan domains .*failed to connect to the hypervisor/.test(e.message),
      ),
    );
  },
);

t.test('destroy while virsh and vagrant fail: nothing claimed or deleted that was not looked at, exit 3', async (t) => {
  const root = t.testdir({ work: {} });
  const work = join(root, 'work');
  const s = standIn();
  const a = await warmLabOnDisk(s, configIn(work), false);
  const b = await warmLabOnDisk(s, { ...configIn(work), lab: { ...configIn(work).lab, cpus: 2 } }, false);
  // as refusing shims answer (libvirtd down looks the same): exit 1 and a message, whatever was asked
  const refused: RunCommand = async (file, args) => {
    s.calls.push([file, ...args].join(' '));
    throw new Error(`${file} ${args.join(' ')} exited 1: ${file}: refused by shim`);
  };
  const refusing: RunCommand = async (file, args, opts) => {
    if (!(opts.allowedCodes ?? [0]).includes(1)) return refused(file, args, opts);
    s.calls.push([file, ...args].join(' '));
    return { code: 1, stdout: '', stderr: `${file}: refused by shim\n`, durationMs: 1 };
  };
  for (const [what, sweep, all, ids] of [
    ['--stale', { stale: true }, false, []],
    ['--warm', { warm: true }, false, []],
    ['--all', {}, true, []],
    [`destroy ${a.id}`, {}, false, [a.id]],
  ] as const) {
    const events: LogEvent[] = [];
    const code = await destroyLabs(configIn(work), [...ids], all, (e) => void events.push(e), {
      sweep,
      vagrantfile: VAGRANTFILE,
      run: refusing,
    });
    t.equal(code, 3, `${what}: exit 3`);
    const said = events.map((e) => ('message' in e ? (e.message ?? '') : ''));
    t.notOk(
      said.some((m) => /^destroyed /.test(m)),
      `${what}: nothing claimed destroyed: ${said.join(' | ')}`,
    );
    t.ok(existsSync(a.dir) && existsSync(b.dir), `${what}: both warm labs' directories are still there`);
    t.ok(
      said.some((m) =>
        /virsh could not tell whether domain .* exists \(exit 1\): virsh: refused by shim|could not look for orphan domains/.test(
          m,
        ),
      ),
      `${what}: says why`,
    );
  }
  t.ok(s.domains.has(a.domain) && s.domains.has(b.domain), 'the domains are untouched');
});

t.test('destroy --warm removes every warm lab but one in use; --older-than picks old labs of any kind', async (t) => {
  const root = t.testdir({ work: {} });
  const work = join(root, 'work');
  const s = standIn();
  const a = await warmLabOnDisk(s, configIn(work), false);
  const b = await warmLabOnDisk(s, { ...configIn(work), lab: { ...configIn(work).lab, cpus: 2 } }, false);
  writeFileSync(warmLockPath(work, b.id), `${process.pid}\n`); // in use by a live process (this one)
  mkdirSync(join(work, 'r1'));
  writeFileSync(join(work, 'r1', 'lab-spec.json'), JSON.stringify(labSpecFor(configIn(work), 'r1', ['client'])));
  const events: LogEvent[] = [];
  t.equal(
    await destroyLabs(configIn(work), [], false, (e) => void events.push(e), {
      sweep: { warm: true },
      vagrantfile: VAGRANTFILE,
      run: s.run,
    }),
    0,
  );
  t.notOk(existsSync(a.dir), 'the free warm lab is gone');
  t.notOk(existsSync(warmLockPath(work, a.id)), 'and its lock');
  t.ok(existsSync(b.dir), 'the one in use stays');
  t.ok(
    events.some(
      (e) => e.kind === 'warn' && e.message === `warm lab ${b.id} is in use by PID ${process.pid}; not destroyed`,
    ),
  );
  t.ok(existsSync(join(work, 'r1')), '--warm leaves run labs alone');

  // --older-than: r1's spec is two hours old, b's record is new
  const twoHoursAgo = (Date.now() - 2 * 3600_000) / 1000;
  utimesSync(join(work, 'r1', 'lab-spec.json'), twoHoursAgo, twoHoursAgo);
  const fake = join(root, 'fake');
  mkdirSync(fake);
  const env = {
    PATH: `${new URL('../fixtures/fake-bin', import.meta.url).pathname}:${process.env['PATH']}`,
    FAKE_VAGRANT_MODE: 'dir',
    FAKE_VAGRANT_DIR: fake,
  };
  t.equal(
    await destroyLabs(configIn(work), [], false, (e) => void events.push(e), {
      sweep: { olderThanS: 3600 },
      vagrant: { env, lockDir: root },
      run: s.run,
    }),
    0,
  );
  t.notOk(existsSync(join(work, 'r1')), 'the two-hour-old run lab is gone');
  t.ok(existsSync(b.dir), 'the new warm lab stays');
});

t.test(
  'openWarmLab: cold when another run holds the key; a broken lab is rebuilt; the snapshot; parked at the end',
  async (t) => {
    const root = t.testdir({ work: {} });
    const work = join(root, 'work');
    const s = standIn();
    const config = configIn(work);
    const inputs = await warmInputsFor(config, {
      roles: ['client'],
      driver: 'qemu',
      vagrantfile: VAGRANTFILE,
      nomad: false,
    });
    const id = warmLabId(warmKey(inputs));
    const spec = labSpecFor(config, 'rx', ['client'], 'qemu');
    const events: LogEvent[] = [];
    const cleanups: { what: string; fn: () => Promise<void> }[] = [];
    const open = () =>
      openWarmLab(
        {
          config,
          spec,
          inputs,
          vagrantfile: VAGRANTFILE,
          logger: (e) => void events.push(e),
          run: s.run,
          vagrant: { lockDir: root },
          cleanup: (what, fn) => void cleanups.push({ what, fn }),
        },
        deadlineIn(60_000),
      );
    const teardown = async () => {
      for (const c of cleanups.reverse()) await c.fn();
      cleanups.length = 0;
    };

    writeFileSync(warmLockPath(work, id), `${process.pid}\n`);
    t.match(await open(), { cold: `the warm lab of this key is in use by PID ${process.pid}; this run goes cold` });
    t.same(cleanups, [], 'nothing registered, nothing created');
    writeFileSync(warmLockPath(work, id), '999999999\n'); // a dead holder's lock is taken over

    // A directory from a creation that never finished: rebuilt cold, with a warning.
    mkdirSync(join(work, id));
    writeFileSync(
      join(work, id, 'lab-spec.json'),
      JSON.stringify({ ...spec, runId: id, machines: [{ ...spec.machines[0]!, name: `${id}-client` }] }),
    );
    const w = await open();
    if ('cold' in w) return t.fail(`went cold: ${w.cold}`);
    t.equal(w.decision.mode, 'create');
    t.ok(
      events.some((e) => e.kind === 'warn' && /has no finished snapshot .*rebuilding it cold/.test(e.message)),
      'the rebuild is said',
    );
    t.equal(s.domains.get(`${id}-client`)?.state, 'running', 'brought up cold');
    t.equal(cleanups[0]!.what, `release the warm lab lock (${id})`, 'the lock is released last');
    const tookMs = await w.snapshot(deadlineIn(10_000));
    t.ok(tookMs >= 0);
    const c = `virsh -c qemu:///system`;
    const order = [
      `${c} suspend ${id}-client`,
      `${c} snapshot-create-as ${id}-client nrh-warm --description nomad-reboot-harness warm lab --atomic`,
      `${c} resume ${id}-client`,
    ];
    t.same(
      s.calls.filter((x) => order.includes(x)),
      order,
      'paused, snapshotted, resumed',
    );
    t.ok((await readWarmRecord(join(work, id)))?.snapshot, 'warm.json records the snapshot');
    await teardown();
    t.equal(s.domains.get(`${id}-client`)?.state, 'shut off', 'parked: shut off, not destroyed');
    t.ok(existsSync(join(work, id)), 'the warm lab stays');
    t.notOk(existsSync(warmLockPath(work, id)), 'the lock is released');

    // A creation that fails before the snapshot leaves nothing.
    s.domains.clear();
    const again = await open();
    if ('cold' in again) return t.fail(again.cold);
    t.equal(again.decision.mode, 'create', 'the domain is gone: rebuilt');
    t.ok(events.some((e) => e.kind === 'warn' && e.message.includes(`its domain ${id}-client is gone`)));
    await teardown();
    t.notOk(existsSync(join(work, id)), 'no snapshot taken: the warm lab is destroyed at the end');
    t.notOk(s.domains.has(`${id}-client`));
  },
);

t.test('openWarmLab goes cold for --fresh, --keep and other providers without touching anything', async (t) => {
  const s = standIn();
  const work = join(t.testdir({}), 'work');
  for (const [lab, keep, want] of [
    [{ warm: false }, false, /--fresh/],
    [{ provider: 'virtualbox' as const }, false, /lab.provider virtualbox/],
    [{}, true, /--keep/],
  ] as const) {
    const config = { ...configIn(work), keep, lab: { ...configIn(work).lab, ...lab } };
    const r = await openWarmLab(
      {
        config,
        spec: labSpecFor(config, 'r', ['client']),
        inputs: await warmInputsFor(config, {
          roles: ['client'],
          driver: 'qemu',
          vagrantfile: VAGRANTFILE,
          nomad: false,
        }),
        vagrantfile: VAGRANTFILE,
        logger: () => {},
        run: s.run,
        cleanup: () => t.fail('nothing to clean up'),
      },
      deadlineIn(10_000),
    );
    t.match(r, { cold: want });
  }
  t.same(s.calls, [], 'no virsh or vagrant call');
  t.notOk(existsSync(work), 'no work dir made');
});
