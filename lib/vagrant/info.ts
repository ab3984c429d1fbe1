// What the installed Vagrant says about itself (doctor): version, plugins, boxes. Never throws for a missing vagrant.
import { runCommand, ANY_EXIT_CODE, type RunCommand } from '../exec/run.js';
import type { Deadline } from '../time/deadlines.js';

export interface VagrantInfo {
  /** "Vagrant 2.3.4", or undefined when vagrant does not run */
  version: string | undefined;
  /** `vagrant plugin list` output ("" when unknown) */
  plugins: string;
  /** `vagrant box list` output ("" when unknown) */
  boxes: string;
  /** why vagrant could not be asked, when it could not */
  error: string | undefined;
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
      return { ok: r.code === 0, out: `${r.stdout}${r.stderr}` };
    } catch (err) {
      return { ok: false, out: err instanceof Error ? err.message : String(err) };
    }
  };
  const v = await ask(['--version']);
  if (!v.ok) return { version: undefined, plugins: '', boxes: '', error: v.out.trim() };
  const [plugins, boxes] = await Promise.all([ask(['plugin', 'list']), ask(['box', 'list'])]);
  return { version: v.out.trim(), plugins: plugins.out, boxes: boxes.out, error: undefined };
}
