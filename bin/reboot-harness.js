#!/usr/bin/env node
// Entry point of the `reboot-harness` command: loads the TypeScript sources through tsx (Node 20 cannot strip types).
import { register } from 'tsx/esm/api';

// Note: while the modules load (about a second), SIGUSR1 would open Node's debugger on 127.0.0.1:9229 and SIGUSR2
// end the process; lib/cli/process-io.ts `ignoreSignals` takes both over once they are loaded, with the same words (Q540)
for (const sig of ['SIGUSR1', 'SIGUSR2'])
  process.on(sig, () =>
    process.stderr.write(
      `warning: ${sig} received: ignored (reboot-harness takes SIGINT, SIGTERM and SIGHUP; it opens no debugger)\n`,
    ),
  );
register();
await import('../lib/cli/entry.ts');
