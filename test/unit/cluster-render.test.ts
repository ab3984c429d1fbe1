import t from 'tap';
import { renderTemplate, placeholdersOf } from '../../lib/cluster/render.js';
import { readTemplate } from '../../lib/cluster/templates.js';
import { renderAgentFiles, bridgePrereqScript, DEFAULT_HEARTBEAT_GRACE } from '../../lib/cluster/provision.js';

t.test('renderTemplate replaces placeholders and rejects missing ones', async (t) => {
  t.equal(renderTemplate('a={{ x }} b={{y}} c={{ x }}', { x: '1', y: '2' }), 'a=1 b=2 c=1');
  t.same(placeholdersOf('{{ a }} {{b}} {{ a }} ${c} {{ 1x }}'), ['a', 'b']);
  t.throws(
    () => renderTemplate('{{ x }} {{ z }}', { x: '1' }, { name: 'server.hcl' }),
    /server\.hcl: no value for placeholder \{\{ z \}\}/,
  );
  t.throws(() => renderTemplate('{{ x }}', { x: '1', typo: '2' }, { strict: true }), /unknown placeholder typo/);
  t.equal(renderTemplate('{{ x }}', { x: '1', extra: '2' }), '1', 'unused vars are fine unless strict');
  t.throws(() => renderTemplate('{{ x }}', { x: 'a"b' }), /must not contain/);
});

t.test('the shipped templates render completely', async (t) => {
  const server = renderAgentFiles(
    'server',
    { private_ip: '10.199.0.10' },
    { hcl: await readTemplate('server.hcl'), unit: await readTemplate('nomad.service') },
  );
  t.match(server.hcl, /bootstrap_expect = 1/);
  t.match(server.hcl, `heartbeat_grace = "${DEFAULT_HEARTBEAT_GRACE}"`);
  t.match(server.hcl, /bind_addr = "10\.199\.0\.10"/);
  t.match(server.hcl, /client \{\n {2}enabled = false/);
  t.notMatch(server.hcl, /\{\{/);
  t.match(server.unit, /ExecStart=\/usr\/local\/bin\/nomad agent -config \/etc\/nomad\.d/);
  t.match(server.unit, /Restart=on-failure/);
  t.match(server.unit, /After=network-online\.target/);
  t.match(server.unit, /show to 10\.199\.0\.10 /);
  t.notMatch(server.unit, /\{\{/);

  const client = renderAgentFiles(
    'client',
    { private_ip: '10.199.0.11', server_ip: '10.199.0.10', log_level: 'INFO' },
    { hcl: await readTemplate('client.hcl'), unit: await readTemplate('nomad.service') },
  );
  t.match(client.hcl, /servers\s+= \["10\.199\.0\.10:4647"\]/);
  t.match(client.hcl, /cni_path\s+= "\/opt\/cni\/bin"/);
  t.match(client.hcl, /network_interface = "eth1"/, 'eth1 on the lab VMs by default');
  t.match(
    renderAgentFiles(
      'client',
      { private_ip: '203.0.113.11', server_ip: '203.0.113.10', network_interface: 'ens5' },
      { hcl: await readTemplate('client.hcl'), unit: await readTemplate('nomad.service') },
    ).hcl,
    /network_interface = "ens5"/,
    'an existing host: its own interface',
  );
  t.match(client.hcl, /log_level\s+= "INFO"/);
  t.match(client.hcl, /"fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"/);
  t.notMatch(client.hcl, /\{\{/);
  t.throws(
    () => renderAgentFiles('client', { private_ip: '10.199.0.11' }, { hcl: 'x', unit: 'y' }),
    /server_ip is required/,
  );
});

t.test('bridge prerequisites persist across the reboot', async (t) => {
  const s = bridgePrereqScript();
  t.match(s, /modprobe -a bridge br_netfilter/);
  t.match(s, /\/etc\/modules-load\.d\/nomad-bridge\.conf/);
  t.match(s, /net\.bridge\.bridge-nf-call-iptables = 1/);
  t.match(s, /sysctl -q -p \/etc\/sysctl\.d\/90-nomad-bridge\.conf/);
});
