// Moved to the ground floor (lib/model): kept as a re-export while branches that import it are merged.
export type * from '../model/evidence.js';
export type * from '../model/check.js';
