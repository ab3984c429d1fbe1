// Moved to the ground floor (lib/model/run.ts): kept as a re-export while branches that import it are merged.
export type * from '../model/run.js';
