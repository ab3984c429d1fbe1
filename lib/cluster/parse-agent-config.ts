// Pure: the directories a Nomad agent config (as the harness renders it, vms/templates) puts the client's allocs in.

/** Nomad's own default when `data_dir` is absent is no use on a client; the harness's templates always set it. */
const DATA_DIR = /^\s*data_dir\s*=\s*"([^"]+)"/m;
const ALLOC_DIR = /^\s*alloc_dir\s*=\s*"([^"]+)"/m;

/** The client's data_dir and alloc dir: `client { alloc_dir }` when set, else <data_dir>/alloc (command/agent/agent.go). */
export function clientDirsOf(hcl: string): { dataDir: string; allocDir: string } | undefined {
  const dataDir = DATA_DIR.exec(hcl)?.[1]?.replace(/\/+$/, '');
  if (!dataDir) return undefined;
  const allocDir = ALLOC_DIR.exec(hcl)?.[1]?.replace(/\/+$/, '') ?? `${dataDir}/alloc`;
  return { dataDir, allocDir };
}
