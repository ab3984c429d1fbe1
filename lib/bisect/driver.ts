// The bisect loop: verify the endpoints (the flip is there, and how often the failure reproduces), then let git's own
// bisection order pick each commit, build it, run it until its tries decide, and narrow the range until one commit
// is left. Every build, try and decision goes to the log as it happens; a log handed back in (resume, replay) answers
// the same questions again without running anything, so an interrupted bisect continues where it stopped.
import type {
  BisectBuild,
  BisectDirection,
  BisectResult,
  BisectStep,
  BisectTry,
  CommitInfo,
  StepDecision,
} from '../model/bisect.js';
import type { BisectIO, BisectOutcome, BisectSetup } from './io.js';
import {
  MIN_CONFIDENCE,
  confidenceOf,
  culpritFlags,
  decideTries,
  directionOf,
  failingSide,
  passesNeeded,
  pct,
  reasonOf,
  termOf,
} from './decide.js';

/** Thrown inside the loop when Ctrl-C or SIGTERM came: the log already holds everything finished. */
class Interrupted extends Error {}

/** Run the bisect to its answer. Never throws for a build or a run that broke: those are skips. */
export async function runBisect(setup: BisectSetup, io: BisectIO): Promise<BisectOutcome> {
  const b = new Bisection(setup, io);
  try {
    return await b.run();
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    const result: BisectResult = {
      status: 'interrupted',
      ...(b.direction ? { direction: b.direction } : {}),
      range: b.rangeLeft,
      confidence: confidenceOf(b.steps.map((s) => s.probability)),
      message: 'interrupted: resume with bisect --resume <this folder>',
    };
    return { result, steps: b.steps, old: b.old, new: b.newest };
  }
}

class Bisection {
  readonly steps: BisectStep[] = [];
  direction: BisectDirection | undefined;
  old: string;
  newest: string;
  rangeLeft: string[] = [];
  private olds: string[] = [];
  private readonly skipped = new Set<string>();
  private readonly infos = new Map<string, CommitInfo>();
  private readonly builds = new Map<string, BisectBuild>();
  private readonly tries = new Map<string, BisectTry[]>();
  private readonly earlierTries = new Map<string, BisectTry[]>();
  private p = 1;
  private k = 1;
  private failTries = { fails: 0, tries: 0 };
  private viaMergeBase: string | undefined;

  constructor(
    private readonly setup: BisectSetup,
    private readonly io: BisectIO,
  ) {
    this.old = setup.good.sha;
    this.newest = setup.bad.sha;
    for (const ev of io.earlier) {
      if (ev.e === 'build') this.builds.set(ev.commit, ev.build);
      if (ev.e === 'try' && ev.try.verdict !== 'interrupted')
        this.earlierTries.set(ev.commit, [...(this.earlierTries.get(ev.commit) ?? []), ev.try]);
    }
  }

  async run(): Promise<BisectOutcome> {
    const { good, bad } = this.setup;
    const ends = await this.order(good, bad);
    if ('result' in ends) return { result: ends.result, steps: this.steps, old: good.sha, new: bad.sha };
    this.old = ends.old;
    this.newest = ends.new;
    this.olds = [ends.old];
    const verified = await this.verifyEndpoints();
    if (verified) return { result: verified, steps: this.steps, old: this.old, new: this.newest };
    return { result: await this.narrow(), steps: this.steps, old: this.old, new: this.newest };
  }

  /** Old and new in history order; the merge base stands in for --good when the refs are on two branches. */
  private async order(
    good: BisectSetup['good'],
    bad: BisectSetup['bad'],
  ): Promise<{ old: string; new: string } | { result: BisectResult }> {
    const h = this.io.history;
    if (good.sha === bad.sha) return { result: this.noFlip(`--good ${good.ref} and --bad ${bad.ref} are one commit`) };
    if (await h.isAncestor(good.sha, bad.sha)) return { old: good.sha, new: bad.sha };
    if (await h.isAncestor(bad.sha, good.sha)) {
      await this.note(
        `--bad ${bad.ref} is older than --good ${good.ref}: bisecting from ${bad.ref} (older) to ${good.ref} (newer); the direction comes from their verdicts`,
      );
      return { old: bad.sha, new: good.sha };
    }
    const base = await h.mergeBase(good.sha, bad.sha);
    if (!base) return { result: this.noFlip(`--good ${good.ref} and --bad ${bad.ref} share no history`) };
    this.viaMergeBase = base;
    await this.note(
      `--good ${good.ref} is not an ancestor of --bad ${bad.ref}: as git bisect does, the bisect runs from their merge base ${short(base)}, which is tested first in place of ${good.ref}`,
    );
    return { old: base, new: bad.sha };
  }

  /**
   * Both endpoints run once; the one that fails runs --tries times in all (its reproduction rate p), the one that
   * passes until it has passed k times. A result here means the bisect cannot start (no flip).
   */
  private async verifyEndpoints(): Promise<BisectResult | undefined> {
    const { tries } = this.setup;
    const oldRole = this.viaMergeBase ? 'merge-base' : 'old-endpoint';
    const o = await this.endpointTry(this.old, 1);
    const n = o === undefined ? undefined : await this.endpointTry(this.newest, 1);
    if (o === undefined || n === undefined) return this.endpointBroke(o === undefined ? this.old : this.newest);
    let oldFails = o === 'failed';
    let newFails = n === 'failed';
    // Both passed once: run each again (up to --tries) until one fails; both failing is no flip either way.
    for (let i = 2; !oldFails && !newFails && i <= tries; i++) {
      const vo = await this.endpointTry(this.old, i);
      if (vo === undefined) return this.endpointBroke(this.old);
      oldFails = vo === 'failed';
      if (oldFails) break;
      const vn = await this.endpointTry(this.newest, i);
      if (vn === undefined) return this.endpointBroke(this.newest);
      newFails = vn === 'failed';
    }
    const direction = directionOf(oldFails, newFails);
    if (!direction) {
      const all = (c: string) => this.tries.get(c) ?? [];
      const count = (c: string) => `${all(c).filter((t) => t.verdict === 'failed').length} of ${all(c).length}`;
      const where = this.viaMergeBase
        ? ` between the merge base ${short(this.viaMergeBase)} and --bad; as git bisect says of a merge base that behaves like --bad, the change lies between the merge base and --good ${this.setup.good.ref}`
        : '';
      return this.noFlip(
        `the check ${this.setup.check} ${oldFails ? 'failed' : 'passed'} on both endpoints (failed ${count(this.old)} tries of the old one, ${count(this.newest)} of the new one): there is no flip to bisect${where}`,
      );
    }
    this.direction = direction;
    const failingCommit = failingSide(direction) === 'new' ? this.newest : this.old;
    const passingCommit = failingCommit === this.newest ? this.old : this.newest;
    for (let i = (this.tries.get(failingCommit) ?? []).length + 1; i <= tries; i++) {
      const v = await this.endpointTry(failingCommit, i);
      if (v === undefined)
        return this.noFlip('the failing endpoint broke while its reproduction rate was measured', true);
    }
    const ft = this.tries.get(failingCommit) ?? [];
    this.failTries = { fails: ft.filter((t) => t.verdict === 'failed').length, tries: ft.length };
    this.p = this.failTries.fails / this.failTries.tries;
    this.k = passesNeeded(this.p, tries);
    await this.note(
      `${direction}: the check fails on ${short(failingCommit)} in ${this.failTries.fails} of ${this.failTries.tries} tries (p = ${pct(this.p)}); a pass needs ${this.k} passing tr${this.k === 1 ? 'y' : 'ies'}`,
    );
    for (let i = (this.tries.get(passingCommit) ?? []).length + 1; i <= this.k; i++) {
      const v = await this.endpointTry(passingCommit, i);
      if (v === undefined) return this.endpointBroke(passingCommit);
      if (v === 'failed')
        return this.noFlip(
          `the check also failed on ${short(passingCommit)} (try ${i}): it fails on both endpoints, so there is no clean flip`,
        );
    }
    const left = (await this.io.history.bisectOrder(this.newest, this.olds)).length;
    for (const [commit, role] of [
      [this.old, oldRole],
      [this.newest, 'new-endpoint'],
    ] as const) {
      const decided = decideTries(this.tries.get(commit) ?? [], { direction, p: this.p, k: this.k });
      if (!decided.done || decided.decision === 'skip') continue;
      await this.decide(commit, role, decided.decision, decided.probability, decided.reason, left);
    }
    return undefined;
  }

  /**
   * An endpoint without a verdict: the check skipped there is bad input (exit 2: the scenario or the fault kind does
   * not judge it); a build or a run that broke is an infrastructure error (exit 3).
   */
  private endpointBroke(commit: string): BisectResult {
    const build = this.builds.get(commit);
    const last = this.tries.get(commit)?.at(-1);
    if (build && !build.ok)
      return this.noFlip(`the endpoint ${short(commit)} did not build: ${reasonOf(build.error)}`, true);
    if (last?.verdict === 'skipped')
      return this.noFlip(
        `the check ${this.setup.check} was skipped on the endpoint ${short(commit)} (${last.message}): this scenario and fault kind do not judge it; choose a check they judge`,
      );
    return this.noFlip(
      `the endpoint ${short(commit)} gave no verdict (${last?.verdict ?? 'no run'}: ${reasonOf(last?.message)}); its report: ${last?.reportDir ?? 'none'}`,
      true,
    );
  }

  /** One try of an endpoint, built first; undefined when it gave no verdict. */
  private async endpointTry(commit: string, n: number): Promise<'passed' | 'failed' | undefined> {
    const build = await this.build(commit);
    if (!build.ok) return undefined;
    const t = await this.try(commit, build, n);
    return t.verdict === 'passed' || t.verdict === 'failed' ? t.verdict : undefined;
  }

  /** git's bisection order picks; each commit is tried until it decides; skips are stepped around. */
  private async narrow(): Promise<BisectResult> {
    const direction = this.direction!;
    let skipsInRow = 0;
    for (;;) {
      const order = await this.io.history.bisectOrder(this.newest, this.olds);
      this.rangeLeft = order;
      if (order.length <= 1) return this.found();
      const pick = order.find((c) => c !== this.newest && !this.skipped.has(c));
      if (!pick) return this.stuck(order, 'every commit left but the newest was skipped');
      if (skipsInRow >= this.setup.maxSkips)
        return this.stuck(
          order,
          `${skipsInRow} commits in a row were skipped (--max-skips ${this.setup.maxSkips})`,
          true,
        );
      const decision = await this.decideCommit(pick, direction, order.length);
      skipsInRow = decision === 'skip' ? skipsInRow + 1 : 0;
    }
  }

  private async decideCommit(commit: string, direction: BisectDirection, left: number): Promise<StepDecision> {
    const build = await this.build(commit);
    if (!build.ok) {
      this.skipped.add(commit);
      await this.decide(commit, 'step', 'skip', 1, `the build failed: ${reasonOf(build.error)}`, left - 1);
      return 'skip';
    }
    for (let n = (this.tries.get(commit) ?? []).length + 1; ; n++) {
      const decided = decideTries(this.tries.get(commit) ?? [], { direction, p: this.p, k: this.k });
      if (decided.done) {
        if (decided.decision === 'skip') this.skipped.add(commit);
        if (decided.decision === 'old') this.olds.push(commit);
        if (decided.decision === 'new') this.newest = commit;
        const after =
          decided.decision === 'skip' ? left : (await this.io.history.bisectOrder(this.newest, this.olds)).length;
        await this.decide(commit, 'step', decided.decision, decided.probability, decided.reason, after);
        return decided.decision;
      }
      await this.try(commit, build, n);
    }
  }

  /** One commit left: the culprit, with its flags (its parent built to compare binaries) and the confidence. */
  private async found(): Promise<BisectResult> {
    const info = await this.info(this.newest);
    const parent = info.parents[0];
    let same: boolean | undefined;
    if (parent) {
      const pb = await this.build(parent, 'parent');
      const cb = this.builds.get(this.newest);
      if (pb.ok && cb?.ok && pb.codeSha256 && cb.codeSha256) same = pb.codeSha256 === cb.codeSha256;
    }
    const confidence = confidenceOf(this.steps.map((s) => s.probability));
    const sure = confidence >= MIN_CONFIDENCE;
    const what = this.direction === 'fix' ? 'first fixed commit' : 'first bad commit';
    const range = sure ? [this.newest] : await this.uncertainRange();
    this.rangeLeft = range;
    return {
      status: sure ? 'found' : 'inconclusive',
      direction: this.direction!,
      culprit: { ...info, flags: culpritFlags(info, same) },
      range,
      confidence,
      reproduction: { ...this.failTries, k: this.k },
      message: sure
        ? `${what}: ${short(this.newest)} ${info.subject} (confidence ${pct(confidence)})`
        : `inconclusive: the most likely ${what} is ${short(this.newest)} ${info.subject}, but the confidence is ${pct(confidence)} (below ${pct(MIN_CONFIDENCE)}): ${range.length} commits are left; raise --tries`,
    };
  }

  /** Without the passes (which may have missed the failure): the commits the certain decisions leave. */
  private async uncertainRange(): Promise<string[]> {
    const certain = this.steps.filter((s) => s.probability >= 1 && s.decision !== 'skip');
    const olds = certain.filter((s) => s.decision === 'old').map((s) => s.commit.sha);
    const news = certain.filter((s) => s.decision === 'new').map((s) => s.commit.sha);
    const newest = news.at(-1) ?? this.setup.bad.sha;
    return this.io.history.bisectOrder(newest, olds.length ? olds : [this.old]);
  }

  private async stuck(order: string[], why: string, aborted = false): Promise<BisectResult> {
    const what = this.direction === 'fix' ? 'first fixed commit' : 'first bad commit';
    return {
      status: aborted ? 'aborted' : 'inconclusive',
      direction: this.direction!,
      range: order,
      confidence: confidenceOf(this.steps.map((s) => s.probability)),
      reproduction: { ...this.failTries, k: this.k },
      message: `${aborted ? 'aborted' : 'inconclusive'}: ${why}; the ${what} is one of ${order.length}: ${order.map(short).join(' ')}`,
    };
  }

  private noFlip(message: string, broken = false): BisectResult {
    return { status: broken ? 'broken' : 'no-flip', range: [], confidence: 0, message };
  }

  private async build(commit: string, role?: 'parent'): Promise<BisectBuild> {
    const known = this.builds.get(commit);
    if (known) return known;
    this.checkSignal();
    const info = await this.info(commit);
    const build = await this.io.runner.build(commit, this.io.signal);
    this.checkSignal();
    this.builds.set(commit, build);
    await this.io.record({ e: 'build', commit, build });
    const took = `${(build.ms / 1000).toFixed(1)} s`;
    this.io.say(
      build.ok
        ? `built ${short(commit)}${role ? ` (the culprit's parent)` : ''} ${info.subject}: ${took}`
        : `build of ${short(commit)} ${info.subject} FAILED (${took}): ${reasonOf(build.error)}`,
    );
    return build;
  }

  private async try(commit: string, build: BisectBuild, n: number): Promise<BisectTry> {
    const done = this.tries.get(commit) ?? [];
    const earlier = this.earlierTries.get(commit)?.[done.length];
    let t: BisectTry;
    if (earlier) t = earlier;
    else {
      this.checkSignal();
      const label = `${short(commit)}-try${n}`;
      t = await this.io.runner.run(commit, build, label, this.io.signal);
      if (t.verdict === 'interrupted' || this.io.signal.aborted) {
        await this.io.record({ e: 'try', commit, label, try: { ...t, verdict: 'interrupted' } });
        throw new Interrupted();
      }
      await this.io.record({ e: 'try', commit, label, try: t });
    }
    this.tries.set(commit, [...done, t]);
    const info = await this.info(commit);
    this.io.say(
      `  try ${n} of ${short(commit)} ${info.subject}: ${this.setup.check} ${t.verdict}${earlier ? ' (from the log)' : ''} (${(t.ms / 1000).toFixed(0)} s)${t.verdict === 'passed' || t.verdict === 'failed' ? '' : `: ${reasonOf(t.message)}`}`,
    );
    return t;
  }

  private async decide(
    commit: string,
    role: BisectStep['role'],
    decision: StepDecision,
    probability: number,
    reason: string,
    left: number,
  ): Promise<void> {
    const step: BisectStep = {
      n: this.steps.length + 1,
      role,
      commit: await this.info(commit),
      build: this.builds.get(commit) ?? { ok: false, ms: 0 },
      tries: this.tries.get(commit) ?? [],
      decision,
      probability,
      reason,
      left,
    };
    this.steps.push(step);
    await this.io.record({ e: 'step', step });
    const term = termOf(decision, this.direction);
    this.io.say(
      `[${step.n}] ${short(commit)} ${step.commit.subject}: ${term} (${reason}); ${left} commit${left === 1 ? '' : 's'} left`,
    );
  }

  private async note(message: string): Promise<void> {
    await this.io.record({ e: 'note', message });
    this.io.say(message);
  }

  private async info(sha: string): Promise<CommitInfo> {
    const known = this.infos.get(sha);
    if (known) return known;
    const info = await this.io.history.commitInfo(sha);
    this.infos.set(sha, info);
    return info;
  }

  private checkSignal(): void {
    if (this.io.signal.aborted) throw new Interrupted();
  }
}

const short = (sha: string): string => sha.slice(0, 10);
