import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseCniListing, cniListingCommand, renderCniListing } from '../../lib/cluster/parse-cni-listing.js';
import { CNI_STATE_DIRS } from '../../lib/checks/cni-state.js';
import { evidenceCommands } from '../../lib/cluster/evidence.js';

const fixture = (n: string) => readFileSync(new URL(`../fixtures/cluster/${n}`, import.meta.url), 'utf8');

t.test('parses a recorded listing of real host-local state (CRLF, no trailing newline, empty lock)', async (t) => {
  const l = parseCniListing(fixture('cni-listing-host-local.txt'));
  t.equal(l.length, 2);
  t.same(l[0], {
    dir: '/tmp/hlfx/nomad',
    exists: true,
    files: {
      '172.26.64.2': '5c3e1b7a-9d2f-4c1e-8f00-3a1b2c3d4e5f\r\neth0',
      '172.26.64.3': '0b2c4d6e-1111-2222-3333-444455556666\r\neth0',
      'last_reserved_ip.0': '172.26.64.3',
      lock: '',
    },
  });
  t.same(l[1], { dir: '/tmp/hlfx-absent/nomad', exists: false, files: {} });
  t.match(renderCniListing(l), /172\.26\.64\.2: "5c3e1b7a-9d2f-4c1e-8f00-3a1b2c3d4e5f\\r\\neth0"/);
  t.match(renderCniListing(l), /\/tmp\/hlfx-absent\/nomad: absent/);
});

t.test('rejects malformed listings, naming the line', async (t) => {
  t.throws(() => parseCniListing('DIR L3Zhcg== 1\nGARBAGE here\n'), /line 2: expected "DIR <base64 path> <0\|1>"/);
  t.throws(() => parseCniListing('FILE bG9jaw== \n'), /line 1: expected a FILE line after a DIR line/);
  t.throws(() => parseCniListing('DIR L3Zhcg== 0\nFILE bG9jaw== \n'), /after a DIR line of an existing directory/);
  t.throws(() => parseCniListing('DIR not*base64 1\n'), /a base64 field/);
  t.same(parseCniListing(''), []);
});

t.test('the listing command covers both state dirs and quotes them', async (t) => {
  const cmd = cniListingCommand();
  t.ok(cmd.startsWith("sh -c 'for d in"), cmd);
  t.ok(cmd.endsWith(` sh ${CNI_STATE_DIRS.join(' ')}`));
  t.match(cniListingCommand(["/tmp/it's here"]), /sh '\/tmp\/it'\\''s here'$/);
});

t.test('evidence commands: journal of both boots, network and CNI state', async (t) => {
  const c = evidenceCommands();
  t.match(c['journal-nomad-previous-boot.txt'], /journalctl -u nomad\.service -b -1/);
  t.match(c['journal-nomad-current-boot.txt'], /-b 0/);
  for (const k of ['ip-addr.txt', 'ip-route.txt', 'iptables-save.txt', 'netns.txt', 'cni-state-ls.txt']) t.ok(c[k], k);
  t.match(c['cni-state-ls.txt'], /\/var\/lib\/cni\/networks\/nomad \/var\/run\/cni\/nomad$/);
});
