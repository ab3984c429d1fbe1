// The result of resolving a build spec (lib/model/build.ts, the ground floor, defines it).
export { VERIFIED } from '../model/build.js';
export type { BuildOrigin, ResolvedBuild } from '../model/build.js';
