// Pure parser for `vagrant --machine-readable` output (`timestamp,target,type,data...`).

/** One machine-readable line. `target` is the machine name or '' for global messages. */
interface MachineRecord {
  timestamp: number;
  target: string;
  type: string;
  data: string[];
}

const RECORD_LINE = /^\d+,/;

/** Undo Vagrant's escaping inside one data field: `%!(VAGRANT_COMMA)`, literal `\n` and `\r`. */
export function unescapeField(s: string): string {
  return s.replaceAll('%!(VAGRANT_COMMA)', ',').replaceAll('\\n', '\n').replaceAll('\\r', '\r');
}

/** Parse machine-readable output into records; lines not starting with `<digits>,` are ignored (Vagrant 2.3.4 also prints plain text, e.g. the ssh-config block). */
export function parseMachineReadable(text: string): MachineRecord[] {
  const out: MachineRecord[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (!RECORD_LINE.test(raw)) continue;
    const fields = raw.split(',');
    if (fields.length < 3) continue;
    const [ts, target, type, ...data] = fields as [string, string, string, ...string[]];
    out.push({ timestamp: Number(ts), target, type, data: data.map(unescapeField) });
  }
  return out;
}

/** Machine name -> state id (`running`, `not_created`, `shutoff`, ...) from `vagrant status` records. */
export function machineStates(records: readonly MachineRecord[]): Record<string, string> {
  const states: Record<string, string> = {};
  for (const r of records) if (r.type === 'state' && r.target && r.data[0] !== undefined) states[r.target] = r.data[0];
  return states;
}

/** The `error-exit` record (error class + message) Vagrant prints before exiting non-zero, if any. */
export function errorExit(records: readonly MachineRecord[]): { errorClass: string; message: string } | undefined {
  const r = records.find((x) => x.type === 'error-exit');
  if (!r) return undefined;
  return { errorClass: r.data[0] ?? '', message: r.data.slice(1).join(',') };
}

/** The `ssh-config` text Vagrant printed for `target` (machine-readable `ssh-config` record). */
export function sshConfigText(records: readonly MachineRecord[], target: string): string | undefined {
  return records.find((r) => r.type === 'ssh-config' && r.target === target)?.data[0];
}

/**
 * One output line of a Vagrant command as a person reads it (the transcript kept as evidence): a UI message as its
 * text, Vagrant's error-exit as `ERROR <class>: <message>`, a plain line as it is; other machine-readable records
 * (metadata, action) and progress noise are dropped (undefined).
 */
export function transcriptLine(line: string): string | undefined {
  const rec = parseMachineReadable(line)[0];
  if (!rec) return isProgressNoise(line) || !line.trim() ? undefined : line.trimEnd();
  if (rec.type === 'error-exit') return `ERROR ${rec.data[0] ?? ''}: ${rec.data.slice(1).join(',')}`;
  if (rec.type !== 'ui') return undefined;
  const message = rec.data.slice(1).join(',');
  // Note: Vagrant's UI messages name their machine themselves ("==> client: Starting domain.")
  return isProgressNoise(message) || !message.trim() ? undefined : message.trimEnd();
}

/**
 * The Ruby exception Vagrant died of when a plugin let one escape instead of raising a Vagrant error (no error-exit
 * record): its first stack line `<file>:<line>:in `<method>': <message> (<Class>)`, as an error-exit would say it.
 * Seen with vagrant-libvirt 0.11.2: `Call to virDomainCreateWithFlags failed: internal error: Unknown CPU model …
 * (Libvirt::Error)`.
 */
export function rubyException(stderr: string): { errorClass: string; message: string } | undefined {
  for (const line of stderr.split('\n')) {
    const m = /^\S+:\d+:in `[^']*': (.+) \(([A-Z][\w:]*)\)\s*$/.exec(line);
    if (m) return { errorClass: m[2]!, message: m[1]! };
  }
  return undefined;
}

const PROGRESS = /^\s*Progress: \d+%/;

/** True for `Progress: N%` lines Vagrant prints while uploading a box volume. */
export function isProgressNoise(line: string): boolean {
  return PROGRESS.test(line.replace(/^[\r\s]+/, ''));
}

/** Drop `Progress: N%` lines (also the `\r`-separated ones) from plain output before logging or quoting it. */
export function dropProgressNoise(text: string): string {
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const segs = line.split('\r');
    const rest = segs.filter((seg) => !isProgressNoise(seg));
    if (rest.length === segs.length) kept.push(line);
    else if (rest.some((seg) => seg.trim() !== '')) kept.push(rest.join('\r'));
  }
  return kept.join('\n');
}
