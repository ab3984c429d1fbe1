// The terminal colours, once: the one table of ANSI codes the live log, the console summary and the comparison table
// paint with, and the painter that leaves text plain when colour is off (not a TTY, NO_COLOR, --json).
const ANSI = {
  dim: '\x1b[2m',
  bold: '\x1b[1m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  reset: '\x1b[0m',
} as const;

type Colour = Exclude<keyof typeof ANSI, 'reset'>;
export type Paint = (c: Colour, text: string) => string;

/** A painter: `text` in colour `c` when `on`, else as it is. */
export function painter(on: boolean): Paint {
  return on ? (c, text) => `${ANSI[c]}${text}${ANSI.reset}` : (_c, text) => text;
}
