// lab.libvirt_driver: auto. KVM when a probe proves KVM boots the box's own kernel, software emulation (TCG)
// otherwise; the answer is cached per host and box, and the choice carries its reason (a run property, `doctor`).
import { access, readdir } from 'node:fs/promises';
import type { Deadline } from '../../time/deadlines.js';
import type { Logger } from '../../log/events.js';
import { boxKernel, type BoxKernel } from '../../vagrant/box-files.js';
import { kvmCacheKeyFor, kvmCachePath, readKvmAnswer, writeKvmAnswer, type KvmAnswer } from './kvm-cache.js';
import { runKvmProbe } from './kvm-probe.js';
import { judgeKvmProbe, type KvmProbeOutput } from '../../parse/kvm-probe-console.js';

export type DriverSetting = 'auto' | 'kvm' | 'qemu';

/** The driver a lab uses and why; `source` says whether the config, the host, the cache or a fresh probe decided. */
export interface DriverChoice {
  driver: 'kvm' | 'qemu';
  reason: string;
  source: 'config' | 'host' | 'cache' | 'probe';
}

/** The effects the choice needs; real ones in realAccelDeps, recorded ones in the unit tests. */
export interface AccelDeps {
  devKvm(): Promise<boolean>;
  kvmModules(): Promise<string[]>;
  boxKernel(box: string): Promise<BoxKernel>;
  cacheKey(box: string, kernel: string, modules: readonly string[]): Promise<string>;
  readAnswer(key: string): Promise<KvmAnswer | undefined>;
  writeAnswer(key: string, answer: KvmAnswer): Promise<void>;
  probe(kernel: string, initrd: string, d: Deadline): Promise<KvmProbeOutput>;
  /** where the cache lives, for the reason text */
  cachePath: string;
  now(): Date;
}

const TCG = 'software emulation (TCG)';

/** Picks the libvirt driver for a setting and box. */
export type ChooseDriver = (setting: DriverSetting, box: string, d: Deadline) => Promise<DriverChoice>;

/** Decide the libvirt driver for `box` under `setting`; only `auto` looks at the host and may run the probe. */
export async function chooseLibvirtDriver(
  setting: DriverSetting,
  box: string,
  d: Deadline,
  deps: AccelDeps,
): Promise<DriverChoice> {
  if (setting !== 'auto') {
    const what = setting === 'kvm' ? 'KVM (hardware virtualization)' : TCG;
    return { driver: setting, reason: `${what}: lab.libvirt_driver is ${setting}`, source: 'config' };
  }
  if (!(await deps.devKvm())) return { driver: 'qemu', reason: `${TCG}: /dev/kvm is missing`, source: 'host' };
  const files = await deps.boxKernel(box);
  if ('missing' in files) {
    const reason = `${TCG}: KVM not probed, ${files.missing} (lab.libvirt_driver: kvm forces KVM)`;
    return { driver: 'qemu', reason, source: 'host' };
  }
  const modules = await deps.kvmModules();
  const key = await deps.cacheKey(box, files.kernel, modules);
  const cached = await deps.readAnswer(key);
  if (cached) {
    const reason = `${cached.reason} (probed ${cached.probedAt}; cached in ${deps.cachePath})`;
    return { driver: cached.driver, reason, source: 'cache' };
  }
  const verdict = judgeKvmProbe(await deps.probe(files.kernel, files.initrd, d));
  if (!verdict.answered) {
    // Not an answer about KVM: emulation for this run, nothing cached, so the next run probes again.
    const reason = `${TCG}: ${verdict.reason}; not cached, the next run probes again`;
    return { driver: 'qemu', reason, source: 'probe' };
  }
  const answer: KvmAnswer = verdict.boots
    ? { driver: 'kvm', reason: `KVM: ${verdict.reason}`, probedAt: deps.now().toISOString() }
    : { driver: 'qemu', reason: `${TCG}: ${verdict.reason}`, probedAt: deps.now().toISOString() };
  await deps.writeAnswer(key, answer);
  return { driver: answer.driver, reason: answer.reason, source: 'probe' };
}

/** A chooser that decides each (setting, box) once per process: parallel matrix cells wait for one probe. */
export function driverChooser(deps: AccelDeps): ChooseDriver {
  const memo = new Map<string, Promise<DriverChoice>>();
  return (setting, box, d) => {
    const k = `${setting}\u0000${box}`;
    let p = memo.get(k);
    if (!p) {
      p = chooseLibvirtDriver(setting, box, d, deps);
      memo.set(k, p);
      p.catch(() => memo.delete(k)); // an interrupted probe is tried again next time
    }
    return p;
  };
}

/** The real host: /dev/kvm, /sys/module, the box under $VAGRANT_HOME, the cache under $XDG_CACHE_HOME, QEMU. */
export function realAccelDeps(o: { env?: Record<string, string | undefined>; logger?: Logger } = {}): AccelDeps {
  const env = o.env ?? process.env;
  const cachePath = kvmCachePath(env);
  return {
    devKvm: () =>
      access('/dev/kvm').then(
        () => true,
        () => false,
      ),
    kvmModules: async () => (await readdir('/sys/module').catch(() => [] as string[])).filter((m) => /^kvm/.test(m)),
    boxKernel: (box) => boxKernel(box, 'libvirt', env),
    cacheKey: kvmCacheKeyFor,
    readAnswer: (key) => readKvmAnswer(cachePath, key),
    writeAnswer: (key, answer) => writeKvmAnswer(cachePath, key, answer),
    probe: (kernel, initrd, d) =>
      runKvmProbe({ kernel, initrd, deadline: d, ...(o.logger ? { logger: o.logger } : {}) }),
    cachePath,
    now: () => new Date(),
  };
}
