import { register } from 'tsx/esm/api';
register();
await import('/work/wt/r4s3-tiers/.test-build/lib/cli/entry.js');
