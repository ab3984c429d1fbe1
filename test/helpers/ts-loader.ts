// Tests that call main() on user scenarios written in TypeScript need a TypeScript loader in their own process, as the
// real CLI has one (bin/reboot-harness.js registers tsx). A test file run as TypeScript (`npx tap <file>.test.ts`, the
// tsx loader from package.json) already has it, and then this module is TypeScript too; compiled to JavaScript
// (tools/build-tests.ts, how the unit and integration tiers run) it registers tsx the way the CLI does.
import { register } from 'tsx/esm/api';

if (!import.meta.url.endsWith('.ts')) register();
