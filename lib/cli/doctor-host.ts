// What doctor reads from the host, as pure functions of the text read: the accelerator a lab gets, the memory it has,
// why a tool did not answer.

export type Accel = { driver: 'kvm' | 'qemu'; detail: string };

/** Decide hardware virtualization vs software emulation from /proc/cpuinfo, /dev/kvm and the loaded modules (/sys/module names). Pure. */
export function detectAccel(cpuinfo: string, devKvm: boolean, modules: readonly string[]): Accel {
  const flags = new Set((/^flags\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? '').split(/\s+/));
  const hw = flags.has('vmx') || flags.has('svm');
  const pvm = modules.includes('kvm_pvm');
  if (hw && devKvm && !pvm)
    return { driver: 'kvm', detail: `hardware virtualization (KVM, ${flags.has('vmx') ? 'vmx' : 'svm'})` };
  const why = pvm
    ? 'kvm_pvm is loaded: /dev/kvm exists but only runs PVM guest kernels'
    : !hw
      ? 'the CPU shows no vmx/svm flag'
      : '/dev/kvm is missing';
  return { driver: 'qemu', detail: `software emulation (TCG): ${why}; VMs boot slowly (allow ~2 min per boot)` };
}

/** Free and total bytes of MemAvailable from /proc/meminfo. Pure. */
export function memAvailableBytes(meminfo: string): number | undefined {
  const m = /^MemAvailable:\s+(\d+)\s+kB/m.exec(meminfo);
  return m ? Number(m[1]) * 1024 : undefined;
}

/**
 * Why a tool's `--version` did not answer: "not found" only when it could not be started (ENOENT); one that ran and
 * failed is named with its exit and first line of output.
 */
export function toolDown(name: string, r: { code: number; out: string }): string {
  const first = (r.out.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 200);
  if (r.code === -1 && /ENOENT|not found/i.test(r.out)) return `${name} not found`;
  return `${name} --version failed (${r.code === -1 ? 'could not start' : `exit ${r.code}`}${first ? `: ${first}` : ''})`;
}
