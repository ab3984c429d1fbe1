#!/usr/bin/env node
// Entry point of the `reboot-harness` command: loads the TypeScript sources through tsx (Node 20 cannot strip types).
import { register } from 'tsx/esm/api';

register();
await import('../lib/cli/entry.ts');
