// When tap times a test out (it sends the test process SIGALRM and lists the open handles), the handles say that a
// request was open but not what the run was doing. Every stand-in run's captured console is registered here, and on
// SIGALRM the tail of the latest ones goes to stderr, which tap shows beside its timeout.
const consoles: { label: string; lines: string[] }[] = [];
const KEEP = 4;
const TAIL = 30;
let installed = false;

function dump(): void {
  // tap may signal more than once before it kills the process: one copy is enough
  process.off('SIGALRM', dump);
  for (const c of consoles) {
    const text = c.lines.join('').split('\n').slice(-TAIL).join('\n');
    process.stderr.write(`\n--- console of ${c.label} at the timeout (last ${TAIL} lines) ---\n${text}\n`);
  }
}

/** Show `lines` (a run's captured stderr, appended to as the run goes) if the test process gets SIGALRM. */
export function showOnTimeout(label: string, lines: string[]): void {
  consoles.push({ label, lines });
  if (consoles.length > KEEP) consoles.shift();
  if (installed) return;
  installed = true;
  // Note: tap's own SIGALRM listener still runs; this one only adds the runs' consoles to its report
  process.on('SIGALRM', dump);
}
