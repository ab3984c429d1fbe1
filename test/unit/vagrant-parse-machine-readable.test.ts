// parseMachineReadable and helpers over recorded `vagrant --machine-readable` output.
import t from 'tap';
import { readFileSync } from 'node:fs';
import {
  dropProgressNoise,
  errorExit,
  machineStates,
  parseMachineReadable,
  sshConfigText,
  transcriptLine,
  unescapeField,
} from '../../lib/parse/vagrant-machine-readable.js';

const fx = (f: string) => readFileSync(new URL(`../fixtures/vagrant/${f}`, import.meta.url), 'utf8');

t.test('unescapeField restores commas, newlines and carriage returns', async (t) => {
  t.equal(unescapeField('a%!(VAGRANT_COMMA) b\\nc\\rd'), 'a, b\nc\rd');
  t.equal(unescapeField('plain'), 'plain');
});

t.test('status of a running lab (sample from vm-lab.md)', async (t) => {
  const recs = parseMachineReadable(fx('status-running.mr.txt'));
  t.same(machineStates(recs), { server: 'running', client: 'shutoff' });
  const long = recs.find((r) => r.target === 'server' && r.type === 'state-human-long');
  t.match(long?.data[0], /To stop this machine, you can run\n`vagrant halt`/, 'escaped comma and newline inside data');
  t.equal(recs[0]?.timestamp, 1796206584);
  const global = recs.find((r) => r.type === 'ui');
  t.equal(global?.target, '', 'global messages have an empty target');
  t.equal(errorExit(recs), undefined, 'no error-exit in a successful status');
});

t.test('status with nothing created (recorded, vagrant 2.3.4)', async (t) => {
  const recs = parseMachineReadable(fx('status-not-created.mr.txt'));
  t.same(machineStates(recs), { 'nrh-abc123-server': 'not_created', 'nrh-abc123-client': 'not_created' });
  t.equal(recs.filter((r) => r.type === 'metadata').length, 2);
});

t.test('error-exit of status in an empty directory (recorded)', async (t) => {
  const e = errorExit(parseMachineReadable(fx('status-no-environment.mr.txt')));
  t.equal(e?.errorClass, 'Vagrant::Errors::NoEnvironmentError');
  t.match(e?.message, /^A Vagrant environment or target machine is required to run this\ncommand\. .*Or,\nget an ID/s);
});

t.test('error-exit of ssh-config on a machine not running (recorded)', async (t) => {
  const recs = parseMachineReadable(fx('ssh-config-not-ready.mr.txt'));
  t.equal(errorExit(recs)?.errorClass, 'Vagrant::Errors::SSHNotReady');
  t.equal(sshConfigText(recs, 'nrh-abc123-client'), undefined);
  t.same(machineStates(recs), {}, 'no state records');
});

t.test('ssh-config record followed by the plain block (vagrant 2.3.4 prints both)', async (t) => {
  const text = fx('ssh-config-client.mr.txt');
  const recs = parseMachineReadable(text);
  t.equal(recs.length, 2, 'plain lines ignored');
  const cfg = sshConfigText(recs, 'client');
  t.match(cfg, /^Host client\n {2}HostName 10\.198\.0\.232\n/);
  t.match(cfg, /IdentityFile \/tmp\/vmlab\/\.vagrant\/machines\/client\/libvirt\/private_key\n/);
  t.equal(sshConfigText(recs, 'server'), undefined, 'no record for another machine');
});

t.test('lines that do not start with digits and a comma are ignored', async (t) => {
  const recs = parseMachineReadable(
    'Bringing machine up...\n  Progress: 10%\nabc,1,ui,info\n12,two\n17,x,state,running\n',
  );
  t.same(recs, [{ timestamp: 17, target: 'x', type: 'state', data: ['running'] }]);
  t.same(parseMachineReadable(''), []);
});

t.test('progress noise is dropped from ui messages and plain stderr', async (t) => {
  const msgs = fx('up-progress.mr.txt')
    .split('\n')
    .flatMap((l) => (parseMachineReadable(l)[0]?.type === 'ui' ? [transcriptLine(l)] : []))
    .filter((m) => m !== undefined);
  t.same(msgs, [
    '==> server: Uploading base box image as volume into Libvirt storage...',
    '==> server: Creating image (snapshot of base box volume).',
  ]);
  const cleaned = dropProgressNoise(fx('up-progress.stderr.txt'));
  t.notMatch(cleaned, /Progress/);
  t.match(cleaned, /Uploading base box image/);
  t.match(cleaned, /No version detected/);
  t.equal(dropProgressNoise('keep me\nProgress: 5%\n'), 'keep me\n');
});
