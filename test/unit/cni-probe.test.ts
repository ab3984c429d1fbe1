import t from 'tap';
import { readFileSync } from 'node:fs';
import { CNI_DATA_DIRS } from '../../lib/checks/cni-state.js';
import { bridgeNetConfig, stateDirOf } from '../../lib/cni/config.js';
import { cniCall, cniResetCommand, CNI_PROBE_REMOTE_PATH } from '../../lib/cni/commands.js';
import { parseCniResult, parseProbeOutput, describeOutcome } from '../../lib/parse/cni-result.js';

const fixture = (n: string) => readFileSync(new URL(`../fixtures/cni/${n}`, import.meta.url), 'utf8');
const frame = (rc: number, out: string, err = '') =>
  `CNI-PROBE rc=${rc} stdout=${Buffer.from(out).toString('base64')} stderr=${Buffer.from(err).toString('base64')}\n`;

t.test("the bridge config matches Nomad's conflist entry; dataDir only when given", async (t) => {
  const persistent = bridgeNetConfig();
  t.match(persistent, {
    cniVersion: '0.4.0',
    name: 'nomad',
    type: 'bridge',
    bridge: 'nomad',
    ipMasq: true,
    isGateway: true,
    forceAddress: true,
    hairpinMode: false,
  });
  t.same((persistent.ipam as Record<string, unknown>).ranges, [[{ subnet: '172.26.64.0/20' }]]);
  t.notOk('dataDir' in (persistent.ipam as object), 'Nomad <= 1.9.3 sets no dataDir');
  t.equal((bridgeNetConfig({ dataDir: CNI_DATA_DIRS.tmpfs }).ipam as Record<string, unknown>).dataDir, '/var/run/cni');
  t.equal(stateDirOf(undefined), '/var/lib/cni/networks/nomad');
  t.equal(stateDirOf('/var/run/cni/'), '/var/run/cni/nomad');
});

t.test('command builders quote their arguments and pass the config on stdin', async (t) => {
  const add = cniCall('add', 'alloc-1', 'nrh-cni', { dataDir: '/var/run/cni' });
  t.equal(add.cmd, `${CNI_PROBE_REMOTE_PATH} add alloc-1 nrh-cni`);
  t.equal(JSON.parse(add.stdin).ipam.dataDir, '/var/run/cni');
  t.equal(cniCall('del', "x'y", 'ns').cmd, `${CNI_PROBE_REMOTE_PATH} del 'x'\\''y' ns`);
  t.equal(
    cniResetCommand('nrh-cni', ['/var/lib/cni/networks/nomad', '/var/run/cni/nomad']),
    `${CNI_PROBE_REMOTE_PATH} reset nrh-cni /var/lib/cni/networks/nomad /var/run/cni/nomad`,
  );
});

t.test('parses recorded host-local results (Debian containernetworking-plugins 1.1.1)', async (t) => {
  t.same(parseCniResult(fixture('host-local-add-ok.json'), 0), { ok: true, ips: ['172.26.64.2/20'], exitCode: 0 });
  const dup = parseCniResult(fixture('host-local-add-duplicate.json'), 1);
  t.match(dup, {
    ok: false,
    code: 999,
    msg: 'failed to allocate for range 0: 172.26.64.2 has been allocated to allocA, duplicate allocation is not allowed',
  });
  t.match(parseCniResult(fixture('host-local-add-requested-taken.json'), 1), {
    ok: false,
    code: 999,
    msg: /requested IP address 172\.26\.64\.2 is not available/,
  });
  t.equal(
    describeOutcome(dup),
    'error 999: failed to allocate for range 0: 172.26.64.2 has been allocated to allocA, duplicate allocation is not allowed',
  );
});

t.test('parses the framed probe output, and rejects what is not', async (t) => {
  t.same(parseProbeOutput(frame(0, fixture('host-local-add-ok.json'))), {
    ok: true,
    ips: ['172.26.64.2/20'],
    exitCode: 0,
  });
  t.match(parseProbeOutput(`noise\n${frame(1, fixture('host-local-add-duplicate.json'))}`), {
    ok: false,
    code: 999,
    exitCode: 1,
  });
  t.match(parseProbeOutput(frame(1, '', 'segfault')), {
    ok: false,
    code: undefined,
    msg: /exit 1 without a JSON error: segfault/,
    stderr: 'segfault',
  });
  t.match(parseProbeOutput(frame(0, '{"cniVersion":"0.4.0"}')), { ok: false, msg: /exit 0 but no "ips"/ });
  t.throws(() => parseProbeOutput('cni-probe: /usr/lib/cni/bridge not found'), /expected a line "CNI-PROBE rc=<n>/);
  t.equal(describeOutcome(undefined), '(not run)');
});
