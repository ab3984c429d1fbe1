// The real CNI plugins of this host (Debian containernetworking-plugins): host-local directly, and the full bridge ADD
// through vms/cni/cni-probe.sh inside a scratch network namespace (the bridge never touches the host stack).
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { bridgeNetConfig, stateDirOf } from '../../lib/cni/config.js';
import { parseCniResult, parseProbeOutput } from '../../lib/parse/cni-result.js';
import { CNI_PROBE_LOCAL_PATH } from '../../lib/cni/probe.js';
import { findDuplicateIpError } from '../../lib/checks/parse-duplicate-ip.js';
import { cniListingCommand, parseCniListing } from '../../lib/cluster/parse-cni-listing.js';

const CNI = '/usr/lib/cni';
const noPlugins = existsSync(`${CNI}/host-local`)
  ? false
  : `${CNI}/host-local missing (apt-get install -y containernetworking-plugins)`;
const noNetns =
  noPlugins ||
  (process.getuid?.() !== 0
    ? 'needs root for network namespaces'
    : existsSync(`${CNI}/bridge`)
      ? false
      : `${CNI}/bridge missing`);

function hostLocal(command: 'ADD' | 'DEL', id: string, dataDir: string, cniArgs = '') {
  const r = spawnSync(`${CNI}/host-local`, [], {
    input: JSON.stringify(bridgeNetConfig({ dataDir })),
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      CNI_COMMAND: command,
      CNI_CONTAINERID: id,
      CNI_NETNS: '/dev/null',
      CNI_IFNAME: 'eth0',
      CNI_PATH: CNI,
      ...(cniArgs ? { CNI_ARGS: cniArgs } : {}),
    },
  });
  return parseCniResult(r.stdout, r.status ?? -1, r.stderr);
}

t.test(
  'host-local: the same container id added again without a requested IP is a duplicate',
  { skip: noPlugins },
  async (t) => {
    const dataDir = t.testdir({});
    const id = 'allocA';
    t.same(hostLocal('ADD', id, dataDir), { ok: true, ips: ['172.26.64.2/20'], exitCode: 0 });
    t.equal(
      readFileSync(`${stateDirOf(dataDir)}/172.26.64.2`, 'latin1'),
      `${id}\r\neth0`,
      'state file: id CRLF ifname, no trailing newline',
    );
    const again = hostLocal('ADD', id, dataDir);
    t.match(again, { ok: false, code: 999, exitCode: 1 });
    t.equal(
      again.ok ? '' : again.msg,
      'failed to allocate for range 0: 172.26.64.2 has been allocated to allocA, duplicate allocation is not allowed',
    );
    t.same(findDuplicateIpError(again.ok ? '' : again.msg), { ip: '172.26.64.2', allocId: id });
    const requested = hostLocal('ADD', id, dataDir, 'IgnoreUnknown=1;IP=172.26.64.2');
    t.match(
      requested,
      { ok: false, msg: /requested IP address 172\.26\.64\.2 is not available/ },
      'requesting the address is a different error',
    );
    t.match(hostLocal('DEL', id, dataDir), { exitCode: 0 });
    t.match(hostLocal('ADD', id, dataDir), { ok: true }, 'after DEL the id can be added again');
    const listing = parseCniListing(
      execFileSync('sh', ['-c', cniListingCommand([stateDirOf(dataDir)])], { encoding: 'utf8' }),
    );
    t.match(listing[0]?.files, { 'last_reserved_ip.0': '172.26.64.3' });
  },
);

t.test(
  'cni-probe.sh: bridge + host-local in a scratch netns, "reboot" by wiping netns (and tmpfs state)',
  { skip: noNetns },
  async (t) => {
    const host = `nrh-cnih-${process.pid}`;
    const ctr = `nrh-cnic-${process.pid}`;
    execFileSync('ip', ['netns', 'add', host]);
    execFileSync('ip', ['-n', host, 'link', 'set', 'lo', 'up']);
    t.teardown(() => {
      spawnSync('ip', ['netns', 'del', ctr]);
      spawnSync('ip', ['netns', 'del', host]);
    });
    const dataDir = t.testdir({});
    const probe = (cmd: string, ...args: string[]) => {
      const out = execFileSync('ip', ['netns', 'exec', host, 'sh', CNI_PROBE_LOCAL_PATH, cmd, ...args], {
        input: JSON.stringify(bridgeNetConfig({ dataDir })),
        encoding: 'utf8',
      });
      return parseProbeOutput(out);
    };
    const first = probe('add', 'allocB', ctr);
    t.same(first, { ok: true, ips: ['172.26.64.2/20'], exitCode: 0 });
    t.match(
      execFileSync('ip', ['-n', host, '-br', 'addr', 'show', 'nomad'], { encoding: 'utf8' }),
      /172\.26\.64\.1\/20/,
      'bridge "nomad" got the gateway address inside the scratch netns',
    );
    execFileSync('ip', ['netns', 'del', ctr]); // what a reboot does to /var/run/netns
    const persistent = probe('add', 'allocB', ctr);
    t.match(persistent, {
      ok: false,
      code: 999,
      msg: /172\.26\.64\.2 has been allocated to allocB, duplicate allocation is not allowed/,
    });
    execFileSync('ip', ['netns', 'del', ctr]);
    rmSync(stateDirOf(dataDir), { recursive: true }); // what a reboot does to a tmpfs dataDir
    t.same(probe('add', 'allocB', ctr), { ok: true, ips: ['172.26.64.2/20'], exitCode: 0 });
    const reset = execFileSync(
      'ip',
      ['netns', 'exec', host, 'sh', CNI_PROBE_LOCAL_PATH, 'reset', ctr, stateDirOf(dataDir)],
      { encoding: 'utf8' },
    );
    t.match(reset, /CNI-PROBE reset ok/);
    t.notOk(existsSync(stateDirOf(dataDir)));
  },
);
