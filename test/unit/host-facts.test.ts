// The facts people look for: each machine's kernel and CNI plugin releases, and the Nomad agent's own WARN and ERROR
// lines since the fault (listed on the HTML page with their time), read from recorded real-shaped output.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { hostFactProperties, parseHostFacts } from '../../lib/parse/host-facts.js';
import { hostFactsCommand } from '../../lib/cluster/evidence.js';
import {
  agentWarningEvents,
  agentWarnings,
  agentWarningsFact,
  MAX_AGENT_LINES,
} from '../../lib/checks/agent-warnings.js';
import { renderHtml } from '../../lib/report/html.js';
import type { RunRecord } from '../../lib/model/run.js';

t.test('kernel and CNI plugin releases from the about line each plugin prints', async (t) => {
  // a handed-over host: an older firewall plugin (as docs/findings.md recorded one), Debian's own host-local, which
  // prints no release, no portmap, and sudo's complaint about the host name
  const text = readFileSync(new URL('../fixtures/cni/host-facts-handed-over.txt', import.meta.url), 'utf8');
  const f = parseHostFacts(text);
  t.same(f, {
    kernel: '6.1.0-37-amd64',
    cni: {
      bridge: 'v1.6.2',
      firewall: 'v1.1.1',
      'host-local': 'version unknown',
      loopback: 'v1.6.2',
      portmap: 'absent',
    },
  });
  t.same(hostFactProperties('client-2', f), {
    'client-2.kernel': '6.1.0-37-amd64',
    'client-2.cni.plugins':
      'bridge v1.6.2, firewall v1.1.1, host-local version unknown, loopback v1.6.2, portmap absent',
  });
  t.same(hostFactProperties('server', parseHostFacts('')), {}, 'nothing read, nothing claimed');
  t.equal(parseHostFacts('bridge present 1.4.0\n').cni['bridge'], '1.4.0', 'a bare release');
  t.equal(parseHostFacts('bridge present\n').cni['bridge'], 'no version printed');
});

t.test(
  "the command runs each plugin with no CNI_COMMAND (its about line), not VERSION (the spec's versions)",
  async (t) => {
    const cmd = hostFactsCommand();
    t.match(cmd, /^echo "kernel \$\(uname -r\)"\n/);
    for (const p of ['bridge', 'firewall', 'host-local', 'loopback', 'portmap'])
      t.match(cmd, new RegExp(`/opt/cni/bin/${p}'? </dev/null 2>&1 \\| head -n 1`));
    t.notMatch(cmd, /CNI_COMMAND/);
  },
);

const journal = (
  JSON.parse(readFileSync(new URL('../fixtures/nomad/real-journal-1.9.3-vm-reboot.json', import.meta.url), 'utf8')) as {
    lines: string[];
  }
).lines;

t.test("the agent's WARN and ERROR lines since the fault, from a real 1.9.3 client's journal", async (t) => {
  const all = agentWarnings(journal, 0);
  t.same(
    all.map((l) => [new Date(l.atMs).toISOString(), l.level, l.message.split(':')[0]]),
    [
      ['2026-12-02T12:23:32.531Z', 'ERROR', 'client.driver_mgr.exec'],
      ['2026-12-02T12:23:32.532Z', 'ERROR', 'client.alloc_runner.task_runner'],
      ['2026-12-02T12:23:38.741Z', 'WARN', 'client.alloc_runner.runner_hook'],
      ['2026-12-02T12:23:43.060Z', 'ERROR', 'client.alloc_runner'],
    ],
    'INFO lines and the banner are left out; hclog time, not journald',
  );
  t.match(all[0]!.message, /^client\.driver_mgr\.exec: failed to reattach to executor: driver=exec error=/);
  const since = agentWarnings(journal, Date.parse('2026-12-02T12:23:35Z'));
  t.equal(since.length, 2, 'only the lines at or after the fault');
  t.equal(agentWarningsFact(all), '4 since the fault (1 WARN, 3 ERROR)');
  t.equal(agentWarningsFact([]), 'none since the fault');
  t.same(agentWarningEvents(all, 'client').slice(2, 3), [
    {
      atMs: Date.parse('2026-12-02T12:23:38.741Z'),
      lane: 'host',
      machine: 'client',
      label: 'nomad agent WARN',
      detail: all[2]!.message,
      severity: 'warn',
    },
  ]);
  const many = Array.from(
    { length: MAX_AGENT_LINES + 5 },
    (_, i) => `2026-12-02T12:24:${String(i).padStart(2, '0')}.000Z [WARN]  client: w${i}`,
  );
  t.equal(agentWarningEvents(agentWarnings(many, 0), 'client').length, MAX_AGENT_LINES, 'the timeline keeps a few');
  t.match(agentWarningsFact(agentWarnings(many, 0)), /^35 since the fault \(35 WARN, 0 ERROR\); the first 30/);
});

t.test('the HTML page lists the agent lines with their time and machine', async (t) => {
  const lines = agentWarnings(journal, 0);
  const run: RunRecord = {
    runId: 'r1',
    scenario: 'bridge-exec-reboot',
    suiteName: 'bridge-exec-reboot@1.9.3',
    hostname: 'h',
    startedAtMs: Date.parse('2026-12-02T12:20:00Z'),
    durationMs: 1000,
    properties: { 'client.agent.warnings': agentWarningsFact(lines), 'client.kernel': '6.1.0-37-amd64' },
    steps: [],
    verdicts: [],
    artifacts: [],
    timeline: agentWarningEvents(lines, 'client'),
    outcome: 'passed',
  };
  const html = renderHtml(run);
  const section = /<section id="agent-warnings">[^]*?<\/section>/.exec(html)?.[0] ?? '';
  t.match(section, /Nomad agent warnings since the fault/);
  t.match(section, /client: 4 since the fault \(1 WARN, 3 ERROR\)/);
  t.match(section, /2026-12-02T12:23:38\.741Z<\/td><td>client<\/td><td><span class="tag warn">WARN<\/span>/);
  t.equal(section.match(/<tr>/g)?.length, 4);
  t.notMatch(renderHtml({ ...run, properties: {}, timeline: [] }), /agent-warnings/, 'no section without the read');
});
