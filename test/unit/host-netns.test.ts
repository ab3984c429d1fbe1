import t from 'tap';
import { parseNetnsList, alivePid, IN_NETNS_ENV } from '../../lib/lab/host.js';
import { setupArgs, SETUP_SCRIPT } from '../../lib/lab/setup.js';

t.test('parseNetnsList reads `ip netns list` with and without ids', async (t) => {
  t.same(parseNetnsList('nrh-dev (id: 1)\nnrh-rec\n\n'), ['nrh-dev', 'nrh-rec']);
  t.same(parseNetnsList(''), []);
});

t.test('alivePid: only a live pid from a readable pid file', async (t) => {
  const dir = t.testdir({ self: `${process.pid}\n`, dead: '999999999\n', junk: 'abc', zero: '0' });
  t.equal(await alivePid(`${dir}/self`), process.pid);
  t.equal(await alivePid(`${dir}/dead`), undefined);
  t.equal(await alivePid(`${dir}/junk`), undefined);
  t.equal(await alivePid(`${dir}/zero`), undefined);
  t.equal(await alivePid(`${dir}/missing`), undefined);
});

t.test('setup arguments', async (t) => {
  t.same(setupArgs({}), [SETUP_SCRIPT]);
  t.same(setupArgs({ skipBox: true, forceBox: true }), [SETUP_SCRIPT, '--no-box', '--force-box']);
  t.match(SETUP_SCRIPT, /vms\/setup-host\.sh$/);
  t.equal(IN_NETNS_ENV, 'NRH_IN_NETNS');
});
