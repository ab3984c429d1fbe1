// What the installed Vagrant says about itself (doctor): version, plugins, boxes. Never throws for a missing vagrant.
import { runCommand, ANY_EXIT_CODE, type RunCommand } from '../exec/run.js';
import type { Deadline } from '../time/deadlines.js';

interface VagrantInfo {
  /** "Vagrant 2.3.4", or undefined when vagrant does not run */
  version: string | undefined;
  /** `vagrant plugin list` output ("" when unknown) */
  plugins: string;
  /** `vagrant box list` output ("" when unknown) */
  boxes: string;
  /** why vagrant could not be asked, when it could not */
  error: string | undefined;
  /** vagrant is not on PATH at all (as opposed to a vagrant that ran and failed) */
  missing?: boolean;
}

/** Ask vagrant for its version, plugins and boxes (three quick commands, no Vagrantfile needed). */
export async function vagrantInfo({
  deadline,
  run = runCommand,
}: {
  deadline: Deadline;
  run?: RunCommand;
}): Promise<VagrantInfo> {
  const env = { VAGRANT_CHECKPOINT_DISABLE: '1', VAGRANT_NO_COLOR: '1' };
  const ask = async (args: string[]) => {
    try {
      const r = await run('vagrant', args, { deadline, allowedCodes: ANY_EXIT_CODE, env });
      const out = `${r.stdout}${r.stderr}`;
      return { ok: r.code === 0, out: r.code === 0 ? out : `exit ${r.code}: ${out.trim() || 'no output'}` };
    } catch (err) {
      const code = (err as { cause?: { code?: string }; code?: string }).cause?.code ?? (err as { code?: string }).code;
      const out = err instanceof Error ? err.message : String(err);
      return { ok: false, out, missing: code === 'ENOENT' || /\bENOENT\b/.test(out) };
    }
  };
  const v = await ask(['--version']);
  if (!v.ok)
    return { version: undefined, plugins: '', boxes: '', error: v.out.trim(), ...(v.missing ? { missing: true } : {}) };
  const [plugins, boxes] = await Promise.all([ask(['plugin', 'list']), ask(['box', 'list'])]);
  return { version: v.out.trim(), plugins: plugins.out, boxes: boxes.out, error: undefined };
}
