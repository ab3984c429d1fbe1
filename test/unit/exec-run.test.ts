// runCommand against real local processes (sh): exit codes, stderr tail, redaction, deadline, interrupt, missing binary.
import t from 'tap';
import { runCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { CommandError, InterruptedError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { consoleLogger } from '../../lib/log/format.js';
import { redactingWriter } from '../../lib/log/redact.js';
import { killMarked, pidsWithArg, sleepMarker } from '../helpers/marked-processes.js';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );
}
const d = () => deadlineIn(10_000);

t.test('success returns code, stdout, stderr and logs the escaped command', async (t) => {
  const events: LogEvent[] = [];
  const r = await runCommand('sh', ['-c', 'echo out; echo err >&2', 'arg with space'], {
    deadline: d(),
    logger: (e) => events.push(e),
  });
  t.equal(r.code, 0);
  t.equal(r.stdout, 'out\n');
  t.equal(r.stderr, 'err\n');
  const ev = events.find((e) => e.kind === 'cmd');
  t.match(ev, { kind: 'cmd', exitCode: 0 });
  t.match(ev?.kind === 'cmd' ? ev.command : '', /^sh -c 'echo out; echo err >&2' 'arg with space'$/);
});

t.test('a disallowed exit code throws CommandError with the command and the last 20 stderr lines', async (t) => {
  const err = await rejection(
    runCommand('sh', ['-c', 'for i in $(seq 1 30); do echo line$i >&2; done; exit 3'], { deadline: d() }),
  );
  t.type(err, CommandError);
  const ce = err as CommandError;
  t.equal(ce.code, 3);
  t.equal(ce.timedOut, false);
  t.match(ce.message, /^command exited 3: sh -c /);
  t.equal(ce.stderrTail.split('\n').length, 20);
  t.match(ce.stderrTail, /^line11\n/);
  t.notMatch(ce.stderrTail, /line10\n/);
});

t.test('allowedCodes accepts other codes', async (t) => {
  const r = await runCommand('sh', ['-c', 'exit 2'], { deadline: d(), allowedCodes: [0, 2] });
  t.equal(r.code, 2);
});

t.test('a secret in the command and the stderr tail reaches the console only through the one redactor', async (t) => {
  const shown: string[] = [];
  // Note: as the CLI wires it: the logger and the error message both end on the console stream, which redacts.
  const stream = redactingWriter(
    (s) => void shown.push(s),
    () => ['tok-SECRET'],
  );
  const log = consoleLogger(stream, { verbose: true, quiet: false, color: false });
  const err = await rejection(
    runCommand('sh', ['-c', 'echo token=$0 >&2; exit 1', 'tok-SECRET'], { deadline: d(), logger: log }),
  );
  t.match(String(err), /token=tok-SECRET/, 'the error carries the stderr tail as the command printed it');
  stream(`${String(err)}\n`);
  t.notMatch(shown.join(''), /tok-SECRET/);
  t.match(shown.join(''), /sh -c .* \[REDACTED\]/, 'the logged command shows the marker');
  t.match(shown.join(''), /token=\[REDACTED\]/, 'the stderr tail shows the marker');
});

t.test('the deadline kills the command and marks it timed out', async (t) => {
  const started = Date.now();
  const err = await rejection(runCommand('sh', ['-c', 'exec sleep 30'], { deadline: deadlineIn(500) }));
  t.type(err, CommandError);
  t.equal((err as CommandError).timedOut, true);
  t.match(String(err), /command timed out: sh -c 'exec sleep 30'/);
  t.ok(Date.now() - started < 5000, 'killed promptly');
});

t.test('killGroup: the deadline stops the command with the children that hold its output (Q403)', async (t) => {
  const marker = sleepMarker();
  t.teardown(() => void killMarked(marker));
  const started = Date.now();
  // Note: `; true` keeps sh from exec-ing sleep: sleep is sh's child and holds the output pipes sh was given
  const err = await rejection(
    runCommand('sh', ['-c', `sleep 30 ${marker}; true`], { deadline: deadlineIn(1000), killGroup: true }),
  );
  t.equal((err as CommandError).timedOut, true, String(err));
  t.ok(Date.now() - started < 5000, `returned ${Date.now() - started} ms after the start, not 30 s`);
  t.same(pidsWithArg(marker), [], 'no sleep of the command left');
});

t.test('killGroup: an interrupt stops the group too and is rethrown as is', async (t) => {
  const marker = sleepMarker();
  t.teardown(() => void killMarked(marker));
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new InterruptedError('SIGTERM')), 500);
  const started = Date.now();
  const err = await rejection(
    runCommand('sh', ['-c', `sleep 30 ${marker}; true`], {
      deadline: { at: performance.now() + 60_000, signal: ctl.signal },
      killGroup: true,
    }),
  );
  t.type(err, InterruptedError);
  t.ok(Date.now() - started < 5000, `returned ${Date.now() - started} ms after the start`);
  t.same(pidsWithArg(marker), [], 'no sleep of the command left');
});

t.test('an interrupt (non-timeout abort) is rethrown as is', async (t) => {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new InterruptedError('SIGINT')), 200);
  const err = await rejection(
    runCommand('sleep', ['30'], { deadline: { at: performance.now() + 60_000, signal: ctl.signal } }),
  );
  t.type(err, InterruptedError);
});

t.test('a missing executable is a CommandError saying so', async (t) => {
  const err = await rejection(runCommand('nrh-no-such-binary', ['x'], { deadline: d() }));
  t.type(err, CommandError);
  t.equal((err as CommandError).code, undefined);
  t.match(String(err), /ENOENT/);
});

t.test('input goes to stdin; onLine sees lines as they come', async (t) => {
  const lines: string[] = [];
  const r = await runCommand('sh', ['-c', 'cat; echo done >&2'], {
    deadline: d(),
    input: 'a\nb\n',
    onLine: (s, l) => lines.push(`${s}:${l}`),
  });
  t.equal(r.stdout, 'a\nb\n');
  t.same(lines.sort(), ['stderr:done', 'stdout:a', 'stdout:b']);
});
