// Where a bisect's time went, step by step: the build (cold or from the cache), and for each try the lab (revert or
// bring-up), Nomad's install, the reboot, the job's own start, and the harness's own time besides those (the goal:
// under 30 s a try), read from the bisect's folder (bisect.json and each try's summary.json). Prints a table.
// Not a test. Two ways:
//   npx tsx bench/bisect.ts <reports-dir>/bisect-<id>            # a bisect that ran
//   npx tsx bench/bisect.ts --run -- bisect bridge-exec-reboot --source git:<dir> --good v2.0.4 --bad v2.0.5 \
//     --check task-dirs                                          # run it (real VMs and builds), then the table
// On a shared machine run the second under the VM lock (flock /work/vm.lock …).
import { $, argv, fs, path } from 'zx';
import { runFigures } from './report-figures.js';
import { STEP_IDS, type StepId } from '../lib/model/run.js';
import { msOfSteps } from '../lib/report/step-id.js';

$.verbose = true;

interface Try {
  verdict: string;
  runId?: string;
  reportDir?: string;
  ms: number;
  /** by step name and id (STEP_IDS; absent in bisects from before steps had ids) */
  phases?: { name: string; id?: string; ms: number }[];
}
interface Step {
  n: number;
  role: string;
  commit: string;
  subject: string;
  term: string;
  build: { ok: boolean; ms: number };
  tries: Try[];
}

const LAB = [STEP_IDS.labUp];
const INSTALL = [STEP_IDS.install];
const s = (ms: number) => (ms / 1000).toFixed(1);

async function table(folder: string): Promise<void> {
  const doc = JSON.parse(await fs.readFile(path.join(folder, 'bisect.json'), 'utf8')) as {
    status: string;
    message: string;
    durationMs: number;
    steps: Step[];
  };
  const rows: string[][] = [];
  let besidesAll = 0;
  let triesAll = 0;
  for (const st of doc.steps) {
    st.tries.forEach((t, i) => {
      const phase = (ids: readonly StepId[]) => msOfSteps(t.phases ?? [], ids, (p) => p.ms);
      const summary = t.reportDir ? path.join(folder, t.reportDir, 'summary.json') : '';
      let f: ReturnType<typeof runFigures> | undefined;
      if (summary && fs.existsSync(summary))
        f = runFigures(JSON.parse(fs.readFileSync(summary, 'utf8')), t.runId ?? '?');
      // the harness's own time besides the build, the lab, the install, the reboot and the job's start
      const besides = f ? f.besidesMs - phase(LAB) - phase(INSTALL) : NaN;
      if (f) {
        besidesAll += besides;
        triesAll++;
      }
      rows.push([
        i === 0 ? String(st.n) : '',
        i === 0 ? st.commit.slice(0, 10) : '',
        i === 0 ? st.term : '',
        i === 0 ? `${s(st.build.ms)}${st.build.ms < 5000 ? ' (cached)' : ''}` : '',
        `${i + 1}: ${t.verdict}`,
        s(phase(LAB)),
        s(phase(INSTALL)),
        f ? s(f.rebootMs) : '?',
        f ? s(f.jobStartMs) : '?',
        f ? s(besides) : '?',
        s(t.ms),
      ]);
    });
  }
  const head = [
    '#',
    'commit',
    'decision',
    'build s',
    'try',
    'lab s',
    'install s',
    'reboot s',
    'job start s',
    'harness s',
    'try s',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  console.log(
    `\n${doc.status}: ${doc.message}\nwhole bisect ${s(doc.durationMs)} s; the harness's own time besides build, lab, install, reboot and job start: ${triesAll ? s(besidesAll / triesAll) : '?'} s a try on average (goal 30 s)`,
  );
}

if (argv['run']) {
  const args = argv._.map(String);
  const r = await $({ nothrow: true })`node bin/reboot-harness.js ${args}`;
  const folder = /in (\S+bisect-\S+)$/m.exec(r.stdout)?.[1];
  if (!folder) {
    console.error(`bench: the bisect printed no folder (exit ${r.exitCode})`);
    process.exit(1);
  }
  await table(folder);
} else {
  const folder = argv._[0];
  if (!folder) {
    console.error('usage: npx tsx bench/bisect.ts <bisect folder> | --run -- <bisect arguments>');
    process.exit(2);
  }
  await table(String(folder));
}
