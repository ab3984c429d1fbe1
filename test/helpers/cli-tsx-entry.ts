// The CLI as bin/reboot-harness.js starts it (tsx registered first, for the user scenarios it loads), but from the
// compiled entry when the tests run compiled: what test/helpers/cli-tsx.ts `CLI_TS` names. Not a test file.
import { register } from 'tsx/esm/api';

register();
await import('../../lib/cli/entry.js');
