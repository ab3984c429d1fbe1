// `build`'s text output and its combined error: an error of several lines is shown whole under FAILED, and specs
// that share one resolution (the same release spelt four ways) give one problem, not four.
import t from 'tap';
import { renderText } from '../../lib/cli/build.js';
import { combineErrors } from '../../lib/builds/resolve.js';
import { ConfigError } from '../../lib/errors.js';

t.test('FAILED shows every line of the error, the fix included (old 33)', async (t) => {
  const error = new ConfigError([
    {
      field: 'build spec 1',
      value: 'latest',
      message: 'index.json is not JSON (Unexpected token \'<\', "<html>\n<body>"...)',
      fix: 'name a version',
    },
  ]);
  const out = renderText([{ input: { text: 'latest', field: 'build spec 1' }, error } as never]);
  t.match(out, /FAILED {4}invalid configuration: build spec 1: index\.json is not JSON/);
  t.match(out, /\n {12}<body>"\.\.\.\) \(got "latest"; fix: name a version\)\n$/, 'the rest follows, indented');
});

t.test('one error shared by specs that resolve to the same build is told once (N44)', async (t) => {
  const shared = new ConfigError([{ field: 'build spec 1', value: '1.9.7 ', message: 'no good signature', fix: 'f' }]);
  const combined = combineErrors([shared, shared, shared, shared]);
  t.equal(combined, shared);
  const two = combineErrors([shared, new ConfigError([...shared.problems])]) as ConfigError;
  t.equal(two.problems.length, 1, 'the same problem twice is one');
});
