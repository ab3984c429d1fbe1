// Which libvirt domains are a harness lab's (lib/lab/host/orphans.ts): the description vagrant-libvirt writes names the
// lab's directory, the directory's name is a lab id as the harness makes them, the domain's name is that id and a
// role. Tied to the real id makers, so a new id format cannot leave orphans unseen.
import t from 'tap';
import { harnessDomainDir } from '../../lib/lab/host/orphans.js';
import { newRunId } from '../../lib/cli/session-command.js';
import { warmLabId } from '../../lib/lab/warm/warm-key.js';

t.test('the ids the harness makes are recognised, with a role after them', async (t) => {
  for (const id of [newRunId(), newRunId(), warmLabId('0123456789abcdef'), 'nrhbench0a1b2c']) {
    t.equal(harnessDomainDir(`${id}-client`, `Source: /tmp/work/${id}/Vagrantfile`), `/tmp/work/${id}`, id);
    t.equal(
      harnessDomainDir(`${id}-server`, `Source: /tmp/work/${id}/Vagrantfile\n`),
      `/tmp/work/${id}`,
      `${id}, trailing newline`,
    );
  }
});

t.test("anything else is not the harness's", async (t) => {
  const id = newRunId();
  t.equal(harnessDomainDir(`${id}-client`, undefined), undefined, 'no description');
  t.equal(harnessDomainDir(`${id}-client`, 'made by hand'), undefined, 'another description');
  t.equal(harnessDomainDir(`${id}-client`, `Source: relative/${id}/Vagrantfile`), undefined, 'not an absolute path');
  t.equal(
    harnessDomainDir('myproject_default', 'Source: /home/u/myproject/Vagrantfile'),
    undefined,
    "a Vagrant project's",
  );
  t.equal(harnessDomainDir('web-db', 'Source: /home/u/web/Vagrantfile'), undefined, 'a dir name that is no lab id');
  t.equal(
    harnessDomainDir(`${id}-client`, `Source: /tmp/work/${newRunId()}x/Vagrantfile`),
    undefined,
    'a name of another id',
  );
  t.equal(harnessDomainDir(`${id}-Client!`, `Source: /tmp/work/${id}/Vagrantfile`), undefined, 'no role after the id');
  t.equal(harnessDomainDir(id, `Source: /tmp/work/${id}/Vagrantfile`), undefined, 'the id alone');
});
