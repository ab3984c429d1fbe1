// How lib/ runs the repository's zx scripts (vms/*.ts): this Node with tsx's loader, through lib/exec like any child.

/**
 * tsx's loader as a file URL, resolved from this checkout's node_modules, so a script runs whatever the caller's
 * working directory. Note: `reboot-harness` registers tsx in-process, so process.execArgv does not carry it.
 */
export const TSX_LOADER = import.meta.resolve('tsx');

/** Node's argv (after process.execPath) that runs the TypeScript `script` with `args`. Pure. */
export function tsxArgv(script: string, args: readonly string[] = []): string[] {
  return ['--import', TSX_LOADER, script, ...args];
}
