// A bisect's steps on the real pipeline: a commit is built by the build layer (a source build, cached by commit), and
// each try is a `run` of the scenario with that build, through the same session machinery as `reboot-harness run`
// (its validation, its warm lab, its re-run inside the lab's network namespace, its reports), into the bisect's
// folder. The check's verdict is read back from the run's summary.json.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { HarnessError } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import type { BisectTry } from '../model/bisect.js';
import type { RunRecord } from '../model/run.js';
import type { StepRunner } from '../bisect/io.js';
import { parseSessionJson } from '../report/parse-session.js';
import { codeSha256 } from '../builds/identity.js';
import { commitDate } from '../builds/git.js';
import { deadlineIn } from '../time/deadlines.js';
import { writeText } from '../bisect/log.js';
import type { BuildLayer } from './deps.js';
import type { CommandDeps, ParsedArgs } from './command.js';

/** What a step needs from the bisect command: where, what, and how a `run` is started. */
interface StepContext {
  deps: CommandDeps;
  builds: BuildLayer;
  config: HarnessConfig;
  logger: Logger;
  gitDir: string;
  /** the source as `git:<dir>` */
  source: string;
  scenario: string;
  check: string;
  /** the bisect's folder; each try's reports go to runs/<label> under it */
  dir: string;
  /** the run flags passed on to every try, as parsed values */
  runValues: Record<string, unknown>;
  /** runs one `run` (the run command's handler) with these args and deps; its exit code */
  runCommand(args: ParsedArgs, deps: CommandDeps): Promise<number>;
}

const specOf = (source: string, commit: string) => `${source}@${commit}`;

/** The option values as argv words again (for the run's own argv: its repro and its re-run inside the namespace). */
export function argvOf(values: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [name, v] of Object.entries(values)) {
    if (v === undefined || v === false) continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one === true) out.push(`--${name}`);
      else if (typeof one === 'string' && name === 'keep') out.push(`--${name}=${one}`);
      else out.push(`--${name}`, String(one));
    }
  }
  return out;
}

export function realSteps(c: StepContext): StepRunner {
  return {
    async build(commit, signal) {
      const started = Date.now();
      const ref = { field: '--source', spec: specOf(c.source, commit), cwd: c.deps.cwd, role: 'nomad' as const };
      try {
        const info = await c.builds.resolve(ref, c.config, c.logger, signal);
        const date = await commitDate(c.gitDir, commit, { deadline: deadlineIn(30_000) }).catch(() => '');
        const code = await codeSha256(info.path, [commit, date]).catch(() => undefined);
        return {
          ok: true,
          ms: Date.now() - started,
          path: info.path,
          ...(info.sha256 ? { sha256: info.sha256 } : {}),
          ...(code ? { codeSha256: code } : {}),
          ...(info.version ? { version: info.version } : {}),
        };
      } catch (err) {
        if (!(err instanceof HarnessError)) throw err;
        return { ok: false, ms: Date.now() - started, error: err.message };
      }
    },
    async run(commit, _build, label): Promise<BisectTry> {
      const started = Date.now();
      const reportsDir = join(c.dir, 'runs', label);
      const values = { ...c.runValues, nomad: specOf(c.source, commit), 'reports-dir': reportsDir };
      const rawArgs = [c.scenario, ...argvOf(values)];
      const console: string[] = [];
      const args: ParsedArgs = { command: 'run', rawArgs, positionals: [c.scenario], values };
      const deps: CommandDeps = {
        ...c.deps,
        argv: ['run', ...rawArgs],
        argvProblems: [],
        out: (s) => void console.push(s),
        err: (s) => void console.push(s),
        isTTY: false,
      };
      let code: number;
      try {
        code = await c.runCommand(args, deps);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        code = err instanceof HarnessError ? err.exitCode : 70;
        console.push(`error: ${message}\n`);
      }
      await writeText(join(c.dir, 'runs', `${label}.console.log`), console.join(''));
      const ms = Date.now() - started;
      if (code === 130) return { verdict: 'interrupted', message: 'interrupted', ms, exitCode: code };
      const summary = await findSummary(reportsDir);
      const parsed = summary ? parseSessionJson(summary.text) : undefined;
      const record = parsed?.ok ? judgedRecord(parsed.session.suites, c.check) : undefined;
      const rel = summary ? relative(c.dir, join(summary.dir)) : undefined;
      const base = {
        ms,
        exitCode: code,
        ...(record ? { runId: record.runId } : {}),
        ...(rel ? { reportDir: rel } : {}),
        ...(record
          ? { phases: record.steps.map((s) => ({ name: s.name, ...(s.id ? { id: s.id } : {}), ms: s.durationMs })) }
          : {}),
      };
      if (!record) {
        const tail = console.join('').trim().split('\n').slice(-3).join(' | ');
        return { ...base, verdict: 'error', message: `the run ended with exit ${code} and no report: ${tail}` };
      }
      const v = record.verdicts.find((x) => x.id === c.check);
      if (record.outcome === 'error' && (!v || v.status === 'skipped'))
        return { ...base, verdict: 'error', message: record.error?.message ?? `the run broke (exit ${code})` };
      if (!v) return { ...base, verdict: 'skipped', message: `the run has no verdict for ${c.check}` };
      const verdict = v.status === 'passed' ? 'passed' : v.status === 'failed' ? 'failed' : 'skipped';
      return { ...base, verdict, message: v.message };
    },
  };
}

/**
 * The run a try is judged by: each suite's last attempt (a retry after an infrastructure error replaces the first) is
 * one repeat of `--repeat N`, and the check failed in the try when it failed in any repeat (a failure once is on the
 * failing side, as for the bisect's own tries); else the first repeat where it did not pass, else the first.
 */
function judgedRecord(suites: readonly { attempts: readonly RunRecord[] }[], check: string): RunRecord | undefined {
  const records = suites.flatMap((s) => s.attempts.slice(-1));
  const status = (r: RunRecord) => r.verdicts.find((v) => v.id === check)?.status;
  return records.find((r) => status(r) === 'failed') ?? records.find((r) => status(r) !== 'passed') ?? records[0];
}

/** The summary.json a run wrote under its reports folder (in a folder named after its run id), with that folder. */
async function findSummary(dir: string): Promise<{ text: string; dir: string } | undefined> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const text = await readFile(join(dir, e.name, 'summary.json'), 'utf8').catch(() => undefined);
    if (text) return { text, dir: join(dir, e.name) };
  }
  return undefined;
}
