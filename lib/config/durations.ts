// Durations in the config: Go duration strings as Nomad takes them ("90s", "1h30m"), timeouts in whole seconds, and
// the conversions between the two; each parser with its JSON Schema, as every field parser in fields.ts.
import { bad, described, ok, type JsonSchema, type Parsed } from './fields.js';

const DURATION = /^(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
/** A Go duration with a unit, as a JSON Schema (its bounds are the CLI's to check). */
const DURATION_SCHEMA: JsonSchema = { type: 'string', pattern: DURATION.source };

/** A Go duration string with a unit, as Nomad takes it ("90s", "5m", "1h30m"). */
export const goDuration = described(
  (raw: unknown): Parsed =>
    typeof raw === 'string' && DURATION.test(raw)
      ? ok(raw)
      : typeof raw === 'string' && /^-/.test(raw) && DURATION.test(raw.slice(1))
        ? bad('must be positive', 'write e.g. "90s", "5m" or "1h30m"')
        : bad('must be a Go duration with a unit', 'write e.g. "90s", "5m" or "1h30m"'),
  DURATION_SCHEMA,
);

/** Seconds in a Go duration string (pure; assumes goDuration accepted it). */
export function durationSeconds(d: string): number {
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * (units[m[2]!] ?? 0);
  return total;
}

/** Seconds as the shortest Go duration: 90 -> "1m30s", 3600 -> "1h", 0.3 -> "300ms". */
export function goDurationOf(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  const [h, m, sec] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), Math.round(seconds % 60)];
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec || (!h && !m) ? `${sec}s` : ''}`;
}

/** A round duration inside [min, max] seconds for a fix's example: the largest of a few usual ones at most half-way. */
function exampleWithin(min: number, max: number): number {
  const round = [3600, 1800, 600, 300, 120, 60, 30, 10, 5, 1];
  return round.find((v) => v >= min && v <= Math.max(min, max / 2)) ?? max;
}

/** A duration for a timeout: a Go duration or plain seconds; yields whole seconds. */
export const timeoutSeconds = (min: number, max: number) =>
  described(
    (raw: unknown): Parsed => {
      const s =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^\d+$/.test(raw)
            ? Number(raw)
            : typeof raw === 'string' && DURATION.test(raw)
              ? durationSeconds(raw)
              : NaN;
      const e = exampleWithin(min, max);
      return Number.isFinite(s) && s >= min && s <= max
        ? ok(Math.round(s))
        : bad(`must be a duration from ${min}s to ${max}s`, `write e.g. "${goDurationOf(e)}" or "${e}"`);
    },
    {
      anyOf: [
        { type: 'number', minimum: min, maximum: max },
        { type: 'string', pattern: `${DURATION.source}|^\\d+$` },
      ],
    },
  );

/**
 * A Go duration with a unit, kept as written (Nomad reads it), longer than 0 and at most `maxS` seconds: a value
 * Nomad would refuse, or one no run could outlast, is caught before anything is created.
 */
export const goDurationWithin = (maxS: number) =>
  described((raw: unknown): Parsed => {
    const e = `write a duration longer than 0 and at most ${goDurationOf(maxS)}, e.g. "${goDurationOf(exampleWithin(1, maxS))}"`;
    if (typeof raw === 'string' && /^-/.test(raw) && DURATION.test(raw.slice(1))) return bad('must be positive', e);
    const p = goDuration(raw);
    if (!p.ok) return p;
    const s = durationSeconds(raw as string);
    if (s <= 0) return bad('must be longer than 0', e);
    return s <= maxS ? p : bad(`must be at most ${goDurationOf(maxS)}`, e);
  }, DURATION_SCHEMA);
