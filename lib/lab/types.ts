// Moved to the ground floor (lib/model/lab.ts): kept as a re-export while branches that import it are merged.
export type * from '../model/lab.js';
