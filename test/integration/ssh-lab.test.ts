// lab.provider: ssh against a REAL OpenSSH sshd on 127.0.0.1 standing for two existing hosts (both roles reach the
// same sshd). The boot id is faked through a file the "reboot" rewrites, and teardown runs a marker script instead
// of the real cleanup (which would clean THIS machine); the real script's content is checked in the unit tier.
import t, { type Test } from 'tap';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSshLab, type SshLabOptions } from '../../lib/lab/ssh/ssh-lab.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { ConfigError, HarnessError } from '../../lib/errors.js';
import { sh } from '../../lib/shell/quote.js';
import type { HostSpec } from '../../lib/config/schema.js';
import { sshdForTest, startSshd, type TestSshd } from '../helpers/sshd.js';
import {
  CNI_PLUGINS,
  cniProbeCommand,
  cniUninstallScript,
  manifestOf,
  parseCniProbe,
} from '../../lib/cluster/cni-plugins.js';
import { ensureCniPlugins } from '../../lib/cluster/cni-build.js';
import { rejection } from '../helpers/rejection.js';

const sshd = await sshdForTest(t);
if (sshd) {
  writeFileSync(path.join(sshd.binDir, 'sudo'), '#!/bin/sh\n[ "$1" = -n ] || exit 99\nshift\nexec "$@"\n');
  chmodSync(path.join(sshd.binDir, 'sudo'), 0o755);
  const bootFile = path.join(sshd.dir, 'boot_id');
  const cni = path.join(sshd.dir, 'cni');
  mkdirSync(cni, { recursive: true });
  for (const p of ['bridge', 'firewall', 'host-local', 'loopback', 'portmap']) {
    // at the wanted version, so the tests below that are not about CNI install nothing
    writeFileSync(path.join(cni, p), `#!/bin/sh\necho "CNI ${p} plugin v1.6.2" >&2\n`);
    chmodSync(path.join(cni, p), 0o755);
  }
  const host = (o: Partial<HostSpec> = {}): HostSpec => ({
    address: '127.0.0.1',
    port: sshd.port,
    user: sshd.target.user,
    key: sshd.target.identityFiles[0]!,
    jump: undefined,
    ...o,
  });

  function lab(t: Test, o: Partial<SshLabOptions> = {}) {
    const cleanups: { what: string; fn: () => Promise<void> }[] = [];
    const marker = path.join(sshd!.dir, `cleaned-${Math.random().toString(36).slice(2)}`);
    const l = createSshLab({
      runId: 'rtest',
      roles: ['server', 'client'],
      hosts: { server: host(), client: host() },
      hardResetCommand: undefined,
      cleanup: (what, fn) => void cleanups.push({ what, fn }),
      cniDir: cni,
      hostStateDir: path.join(sshd!.dir, 'state'),
      ssh: { bootIdCommand: sh`cat ${bootFile}`, connectTimeoutMs: 2000 },
      cleanupScript: sh`echo "$(id -un) cleaned" >> ${marker}`,
      ...o,
    });
    t.teardown(async () => {
      for (const c of cleanups.reverse()) await c.fn().catch(() => undefined);
    });
    return { l, cleanups, marker };
  }

  t.test(
    'up reaches both hosts and registers the cleanup; teardown cleans each host as root and leaves it up',
    async (t) => {
      writeFileSync(bootFile, 'boot-A\n');
      const { l, cleanups, marker } = lab(t);
      const up = await l.up({ deadline: deadlineIn(20_000) });
      t.same(Object.keys(up.machines), ['server', 'client']);
      t.equal((await up.machines['client']!.exec('echo hi', { deadline: deadlineIn(5000) })).stdout, 'hi\n');
      t.match(up.describe(), /ssh server: {2}ssh -i .* -p \d+ '?\w+@127\.0\.0\.1/);
      t.match(
        cleanups.map((c) => c.what),
        [/clean what the harness installed on server and client \(the hosts keep running\)/],
      );
      await cleanups[0]!.fn();
      t.equal(
        readFileSync(marker, 'utf8'),
        `${sshd.target.user} cleaned\n${sshd.target.user} cleaned\n`,
        'once per host, through sudo',
      );
      t.ok(sshd.pid(), 'the "hosts" still run');
    },
  );

  t.test('a graceful reboot waits for the new boot id', async (t) => {
    writeFileSync(bootFile, 'boot-B\n');
    const { l } = lab(t);
    const up = await l.up({ deadline: deadlineIn(20_000) });
    // the harness's reboot command runs under sudo; here `systemd-run` is a stand-in that rewrites the boot id file
    writeFileSync(
      path.join(sshd.binDir, 'systemd-run'),
      `#!/bin/sh\n(sleep 1; echo boot-C > ${bootFile}) >/dev/null 2>&1 &\n`,
    );
    chmodSync(path.join(sshd.binDir, 'systemd-run'), 0o755);
    const r = await up.reboot('client', 'graceful', { deadline: deadlineIn(20_000) });
    t.match(r, { bootIdBefore: 'boot-B', bootIdAfter: 'boot-C', kind: 'graceful' });
  });

  t.test(
    'a hard reboot runs lab.hard_reset_command with {role} and {address}; without one it is refused (exit 2)',
    async (t) => {
      writeFileSync(bootFile, 'boot-D\n');
      const calls = path.join(sshd.dir, 'reset-calls');
      const reset = path.join(sshd.dir, 'reset.sh');
      writeFileSync(reset, `#!/bin/sh\necho "$@" >> ${calls}\necho boot-E > ${bootFile}\n`);
      chmodSync(reset, 0o755);
      const { l } = lab(t, { hardResetCommand: [reset, '--host', '{address}', '--name', 'lab-{role}'] });
      const up = await l.up({ deadline: deadlineIn(20_000) });
      const r = await up.reboot('server', 'hard', { deadline: deadlineIn(20_000) });
      t.match(r, { bootIdBefore: 'boot-D', bootIdAfter: 'boot-E', kind: 'hard' });
      t.equal(readFileSync(calls, 'utf8'), '--host 127.0.0.1 --name lab-server\n');
      const none = await lab(t).l.up({ deadline: deadlineIn(20_000) });
      const err = await rejection(none.reboot('client', 'hard', { deadline: deadlineIn(10_000) }));
      t.ok(err instanceof HarnessError);
      t.equal((err as HarnessError).exitCode, 2);
      t.match((err as Error).message, /hard reset of client \(127\.0\.0\.1\): lab\.hard_reset_command is not set/);
    },
  );

  t.test('a jump host (ssh -J) carries the connection; a dead jump host is named in the error', async (t) => {
    writeFileSync(bootFile, 'boot-J\n');
    const accepted = () => (sshd.log().match(/Accepted publickey/g) ?? []).length;
    const before = accepted();
    const jump = `${sshd.target.user}@127.0.0.1:${sshd.port}`;
    const { l } = lab(t, { roles: ['client'], hosts: { client: host({ jump }) } });
    const up = await l.up({ deadline: deadlineIn(20_000) });
    t.equal((await up.machines['client']!.exec('echo via', { deadline: deadlineIn(5000) })).stdout, 'via\n');
    t.equal(accepted() - before, 2, 'two logins: the jump host, then the host through it');
    t.match(up.describe(), / -J '?\w+@127\.0\.0\.1:\d+'? /);
    const dead = lab(t, { roles: ['client'], hosts: { client: host({ jump: '127.0.0.1:1' }) }, reachMs: 3000 });
    const err = await rejection(dead.l.up({ deadline: deadlineIn(20_000) }));
    t.match((err as Error).message, /lab\.hosts\.client\.address: .* not reachable over SSH: .*127\.0\.0\.1:1/);
  });

  // Note: these four share no file the others write (each its own directories and boot id files; the jump host test,
  // which counts the file's sshd's logins, runs before them) and mostly wait: an unreachable host's 3 s, two more
  // sshds starting, the CNI install over SSH. Side by side the file waits for the longest of them only.
  t.test('the tests that keep to their own files, side by side', async (t) => {
    t.jobs = 4;
    t.test('an unreadable key is exit 2 naming the field; an unreachable host is exit 3 naming the host', async (t) => {
      const keyless = await rejection(
        lab(t, { hosts: { server: host(), client: host({ key: '/nonexistent/key' }) } }).l.up({
          deadline: deadlineIn(5000),
        }),
      );
      t.ok(keyless instanceof ConfigError);
      t.match((keyless as ConfigError).problems, [
        { field: 'lab.hosts.client.key', value: '/nonexistent/key', message: 'cannot be read' },
      ]);
      const { l, cleanups } = lab(t, { hosts: { server: host({ port: 1 }), client: host() }, reachMs: 3000 });
      const down = await rejection(l.up({ deadline: deadlineIn(20_000) }));
      t.equal((down as HarnessError).exitCode, 3);
      t.match((down as Error).message, /^lab\.hosts\.server\.address: \w+@127\.0\.0\.1:1 is not reachable over SSH/);
      t.same(cleanups, [], 'nothing to clean: nothing was installed');
    });

    t.test(
      'a client without the right CNI plugins gets them over SSH; teardown takes back exactly those',
      async (t) => {
        // The "host's" plugin dir: bridge at the wanted version, firewall of another version, a plugin of the user's own.
        // The plugins to upload are stand-ins that print the version line the real ones print (the VM tier uploads the
        // real ones); the install and teardown scripts are the real ones, run through sudo over SSH.
        const root = t.testdir({ cni: {}, plugins: {} });
        const [dir, from, state] = ['cni', 'plugins', 'state'].map((d) => path.join(root, d)) as [
          string,
          string,
          string,
        ];
        const fake = (name: string, v: string) => `#!/bin/sh\necho "CNI ${name} plugin ${v}" >&2\n`;
        writeFileSync(path.join(dir, 'bridge'), fake('bridge', 'v1.6.2'), { mode: 0o755 });
        writeFileSync(path.join(dir, 'firewall'), fake('firewall', 'v1.1.1'), { mode: 0o755 });
        writeFileSync(path.join(dir, 'vlan'), 'theirs', { mode: 0o755 });
        for (const p of CNI_PLUGINS) writeFileSync(path.join(from, p), fake(p, 'v1.6.2'), { mode: 0o755 });
        const asked: string[] = [];
        const { l, cleanups } = lab(t, {
          cniDir: dir,
          hostStateDir: state,
          cleanupScript: cniUninstallScript(state),
          cniPlugins: async (v) => {
            asked.push(v);
            return from;
          },
        });
        const up = await l.up({ deadline: deadlineIn(20_000) });
        t.same(asked, ['v1.6.2'], 'the wanted version was asked for once');
        const probe = await up.machines['client']!.exec(cniProbeCommand(dir), { deadline: deadlineIn(5000) });
        t.same(
          parseCniProbe(probe.stdout, 'v1.6.2').map((p) => p.state),
          ['ok', 'ok', 'ok', 'ok', 'ok'],
        );
        t.equal(readFileSync(path.join(dir, 'bridge'), 'utf8'), fake('bridge', 'v1.6.2'), 'the right one untouched');
        t.same(
          readFileSync(manifestOf(state), 'utf8')
            .trim()
            .split('\n')
            .map((l) => l.split(' ')[0]),
          ['replaced', 'added', 'added', 'added'],
          'firewall replaced; host-local, loopback, portmap added',
        );
        await cleanups[0]!.fn();
        t.same(readdirSync(dir).sort(), ['bridge', 'firewall', 'vlan'], 'what the harness added is gone');
        t.equal(
          readFileSync(path.join(dir, 'firewall'), 'utf8'),
          fake('firewall', 'v1.1.1'),
          'the replaced one is back',
        );
        t.notOk(existsSync(state));
        const again = lab(t, { cniDir: dir, hostStateDir: state, cniPlugins: async () => from });
        writeFileSync(path.join(dir, 'firewall'), fake('firewall', 'v1.6.2'), { mode: 0o755 });
        for (const p of ['host-local', 'loopback', 'portmap']) {
          writeFileSync(path.join(dir, p), fake(p, 'v1.6.2'), { mode: 0o755 });
        }
        await again.l.up({ deadline: deadlineIn(20_000) });
        t.notOk(existsSync(state), 'every plugin at the right version: nothing installed, no manifest');
      },
    );

    t.test(
      'plugins to install but no Go and no cached build: exit 2 naming the fix, before anything is touched',
      async (t) => {
        const root = t.testdir({ cache: {} });
        const dir = path.join(root, 'no-cni');
        const { l, cleanups } = lab(t, {
          cniDir: dir,
          hostStateDir: path.join(root, 'state'),
          cniPlugins: (version, deadline) =>
            ensureCniPlugins({
              version,
              deadline,
              env: { PATH: '/nonexistent', XDG_CACHE_HOME: path.join(root, 'cache') },
              fallbackGo: '/nonexistent/go',
            }),
        });
        const err = await rejection(l.up({ deadline: deadlineIn(20_000) }));
        t.equal((err as HarnessError).exitCode, 2);
        t.match(
          (err as Error).message,
          /the CNI plugins v1\.6\.2 for the existing client are not built \(.*cni-plugins-v1\.6\.2\) and Go is missing/,
        );
        t.match((err as HarnessError).hint, /install Go >= 1\.21/);
        t.same(cleanups, [], 'no cleanup registered: nothing was installed');
        t.notOk(existsSync(dir), 'no plugin dir made');
        t.notOk(existsSync(path.join(root, 'state')), 'no harness state on the host');
      },
    );

    t.test(
      'a list of hosts: 1 server + 2 clients, three sshds; each slot reaches its own host, a fault hits only its target',
      async (t) => {
        // Two more sshds on their own ports (the first is the file's): one "host" each, told apart by the port in
        // $SSH_CONNECTION, each with its own boot id file and its own sudo and systemd-run stubs.
        const more: TestSshd[] = [await startSshd(), await startSshd()];
        t.teardown(async () => {
          for (const x of more) await x.dispose();
        });
        const all = [sshd, ...more];
        const root = t.testdir({});
        const bootOf = (x: TestSshd) => path.join(root, `boot-${x.port}`);
        const marker = path.join(root, 'cleaned');
        for (const x of all) {
          writeFileSync(bootOf(x), `boot-${x.port}-A\n`);
          writeFileSync(path.join(x.binDir, 'sudo'), '#!/bin/sh\n[ "$1" = -n ] || exit 99\nshift\nexec "$@"\n');
          chmodSync(path.join(x.binDir, 'sudo'), 0o755);
        }
        const spec = (x: TestSshd, o: Partial<HostSpec> = {}): HostSpec => ({
          address: '127.0.0.1',
          port: x.port,
          user: x.target.user,
          key: x.target.identityFiles[0]!,
          jump: undefined,
          ...o,
        });
        const port = 'echo $SSH_CONNECTION | cut -d" " -f4';
        const cleanups: { what: string; fn: () => Promise<void> }[] = [];
        const make = (o: Partial<SshLabOptions>) =>
          createSshLab({
            runId: 'rlist',
            roles: ['server', 'client'],
            hosts: { servers: [spec(sshd)], clients: [spec(more[0]!), spec(more[1]!)] },
            hardResetCommand: undefined,
            cleanup: (what, fn) => void cleanups.push({ what, fn }),
            cniDir: cni,
            hostStateDir: path.join(root, 'state'),
            ssh: { bootIdCommand: `cat ${root}/boot-$(${port})`, connectTimeoutMs: 2000 },
            cleanupScript: `echo "$(${port}) cleaned" >> ${marker}`,
            ...o,
          });
        const up = await make({}).up({ deadline: deadlineIn(20_000) });
        t.same(Object.keys(up.machines), ['server-1', 'client-1', 'client-2'], 'slot names, servers first');
        t.same(
          Object.values(up.machines).map((m) => `${m.role} ${m.name}`),
          ['server rlist-server-1', 'client rlist-client-1', 'client rlist-client-2'],
        );
        for (const [name, x] of [
          ['server-1', sshd],
          ['client-1', more[0]!],
          ['client-2', more[1]!],
        ] as const) {
          const r = await up.machines[name]!.exec(port, { deadline: deadlineIn(5000) });
          t.equal(r.stdout.trim(), String(x.port), `${name} reaches its own host (port ${x.port})`);
        }
        t.match(up.describe(), /ssh client-2: {2}ssh -i .* -p \d+ '?\w+@127\.0\.0\.1/);
        t.equal(
          (await up.collectEvidence({ deadline: deadlineIn(5000) }))['hosts.txt'],
          all
            .map((x, i) => `${['server-1', 'client-1', 'client-2'][i]}: ${x.target.user}@127.0.0.1:${x.port}\n`)
            .join(''),
        );

        // A graceful reboot of client-2: its boot id changes; client-1's and the server's do not.
        writeFileSync(
          path.join(more[1]!.binDir, 'systemd-run'),
          `#!/bin/sh\n(sleep 1; echo boot-${more[1]!.port}-B > ${bootOf(more[1]!)}) >/dev/null 2>&1 &\n`,
        );
        chmodSync(path.join(more[1]!.binDir, 'systemd-run'), 0o755);
        const r = await up.reboot('client-2', 'graceful', { deadline: deadlineIn(20_000) });
        t.match(r, {
          bootIdBefore: `boot-${more[1]!.port}-A`,
          bootIdAfter: `boot-${more[1]!.port}-B`,
          kind: 'graceful',
        });
        t.equal(await up.machines['client-1']!.bootId({ deadline: deadlineIn(5000) }), `boot-${more[0]!.port}-A`);
        t.equal(await up.machines['server-1']!.bootId({ deadline: deadlineIn(5000) }), `boot-${sshd.port}-A`);
        const err = await rejection(up.reboot('client', 'graceful', { deadline: deadlineIn(5000) }));
        t.match((err as Error).message, /no host named "client" \(have server-1, client-1, client-2\)/);

        // The teardown cleans each host once.
        t.match(
          cleanups.map((c) => c.what),
          [/clean what the harness installed on server-1, client-1 and client-2 \(the hosts keep running\)/],
        );
        await cleanups[0]!.fn();
        t.same(
          readFileSync(marker, 'utf8').trim().split('\n').sort(),
          all.map((x) => `${x.port} cleaned`).sort(),
          'once per host',
        );

        // Problems name the entry: its list and index.
        cleanups.length = 0;
        const keyless = await rejection(
          make({
            hosts: { servers: [spec(sshd)], clients: [spec(more[0]!), spec(more[1]!, { key: '/nonexistent/key' })] },
          }).up({ deadline: deadlineIn(5000) }),
        );
        t.ok(keyless instanceof ConfigError);
        t.match((keyless as ConfigError).problems, [
          { field: 'lab.hosts.clients[1].key', value: '/nonexistent/key', message: 'cannot be read' },
        ]);
        const down = await rejection(
          make({
            hosts: { servers: [spec(sshd)], clients: [spec(more[0]!), spec(more[1]!, { port: 1 })] },
            reachMs: 3000,
          }).up({ deadline: deadlineIn(20_000) }),
        );
        t.equal((down as HarnessError).exitCode, 3);
        t.match(
          (down as Error).message,
          /^lab\.hosts\.clients\[1\]\.address: \w+@127\.0\.0\.1:1 is not reachable over SSH/,
        );
        t.same(cleanups, [], 'nothing to clean: nothing was installed');
      },
    );
  });
}
