// `reboot-harness destroy`: tear down labs left by --keep or a killed run, found by run id under the work dir.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, HarnessError, type ExitCode } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import { deadlineIn } from '../run/deadline.js';
import { createVagrant, type VagrantOptions } from '../vagrant/vagrant.js';
import { LAB_SPEC_FILE, serialLogPath, type LabSpec } from './spec.js';
import { stopLabHost } from './host.js';

/** Budget for destroying one lab. */
const DESTROY_MS = 5 * 60_000;

/** Run directories under the work dir that hold a lab spec (i.e. a lab this harness created). */
export async function findLabDirs(workDir: string): Promise<{ runId: string; dir: string }[]> {
  const names = await readdir(workDir).catch(() => [] as string[]);
  const out: { runId: string; dir: string }[] = [];
  for (const n of names.sort()) {
    const dir = join(workDir, n);
    if (await stat(join(dir, LAB_SPEC_FILE)).catch(() => undefined)) out.push({ runId: n, dir });
  }
  return out;
}

/** Destroy the labs of the given run ids (or all); optionally stop the lab host (libvirtd, netns) the harness started. */
export async function destroyLabs(
  config: HarnessConfig, ids: string[], all: boolean, logger: Logger,
  { stopHost = false, vagrant = {} }:
    { stopHost?: boolean; vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'logger'>> } = {},
): Promise<ExitCode> {
  const found = await findLabDirs(config.lab.workDir);
  const unknown = ids.filter((id) => !found.some((f) => f.runId === id));
  if (unknown.length) {
    throw new HarnessError(`no lab for run id ${unknown.join(', ')} under ${config.lab.workDir}`, { exitCode: EXIT.USAGE, hint: found.length ? `labs present: ${found.map((f) => f.runId).join(', ')}` : 'no labs are present' });
  }
  const chosen = all ? found : found.filter((f) => ids.includes(f.runId));
  let failed = 0;
  for (const { runId, dir } of chosen) {
    const spec = JSON.parse(await readFile(join(dir, LAB_SPEC_FILE), 'utf8')) as LabSpec;
    try {
      const adapter = createVagrant({ ...vagrant, cwd: dir, logger });
      await adapter.destroy([], { provider: spec.provider, deadline: deadlineIn(DESTROY_MS) });
      await rm(dir, { recursive: true, force: true });
      const serialLogs = spec.provider === 'libvirt' ? spec.machines.map((m) => serialLogPath(spec, m.name)) : [];
      await Promise.all(serialLogs.map((f) => rm(f, { force: true })));
      logger({ kind: 'info', t: 0, message: `destroyed lab ${runId} (${spec.machines.map((m) => m.name).join(', ')})` });
    } catch (err) {
      failed++;
      logger({ kind: 'warn', t: 0, message: `could not destroy lab ${runId}: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  if (!chosen.length) logger({ kind: 'info', t: 0, message: `no labs under ${config.lab.workDir}` });
  if (stopHost) {
    const stopped = await stopLabHost({ deadline: deadlineIn(60_000), logger });
    logger({ kind: 'info', t: 0, message: stopped.length ? `lab host stopped: ${stopped.join(', ')}` : 'lab host: nothing the harness started is running' });
  }
  return failed ? EXIT.INFRA : EXIT.OK;
}
