// quote() and sh`` table tests: every value must come out as one literal POSIX sh word.
import t from 'tap';
import { quote, raw, sh } from '../../lib/shell/quote.js';

t.test('quote table', async (t) => {
  const table: [string | number, string][] = [
    ['', "''"],
    ['abc', 'abc'],
    ['/usr/local/bin/nomad', '/usr/local/bin/nomad'],
    ['10.199.0.11:8080', '10.199.0.11:8080'],
    ['a-b_c.d,e+f@g%h', 'a-b_c.d,e+f@g%h'],
    [42, '42'],
    ['a b', "'a b'"],
    ["it's", "'it'\\''s'"],
    ["'", "''\\'''"],
    ['$HOME', "'$HOME'"],
    ['`id`', "'`id`'"],
    ['$(reboot)', "'$(reboot)'"],
    ['x\ny', "'x\ny'"],
    ['a=b', "'a=b'"],
    ['~root', "'~root'"],
    ['*', "'*'"],
    ['a;b', "'a;b'"],
    ['ünïcødé', "'ünïcødé'"],
    ['\\', "'\\'"],
  ];
  for (const [input, want] of table) t.equal(quote(input), want, `quote(${JSON.stringify(input)})`);
});

t.test('NUL is rejected, not silently truncated', async (t) => {
  t.throws(() => quote('a\0b'), /cannot pass a NUL byte/);
  t.throws(() => sh`echo ${'x\0'}`, /NUL/);
});

t.test('sh quotes every interpolated value, splices arrays and raw fragments', async (t) => {
  const file = "/tmp/it's here";
  t.equal(sh`cat ${file}`, "cat '/tmp/it'\\''s here'");
  t.equal(sh`ls ${['-la', 'a b']} ${raw('2>&1')}`, "ls -la 'a b' 2>&1");
  t.equal(sh`sudo sh -c ${sh`echo ${'$x'}`}`, "sudo sh -c 'echo '\\''$x'\\'''");
  t.equal(sh`plain`, 'plain');
  t.equal(sh`${''}`, "''");
});
