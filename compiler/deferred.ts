// Errors Strapi 5.54 raises only when a populated level has rows. Its database layer converts a populate's
// filter values (dates, numbers) as it builds that populate's query, which it does only for the rows of the
// level above: on an empty list, or under rows that are not there, an invalid value is never looked at and
// the answer is a 200 (checked live: `populate[author][filters][createdAt][$eq]=nope` is 400 on a list with
// rows, 200 on an empty one, 400 again when the rows have no author). The parse keeps such an error with
// the level it belongs under (compiler/params.ts) and the statement reads that populate as matching
// nothing; once the answer is built, the error stands if that level holds a row.
import type { ApiError } from './errors.ts';

/** One step from the answer's rows down to a level: an attribute's key, in a dynamic zone one component's entries. */
export interface LevelStep { key: string; component?: string }

export interface DeferredError {
  error: ApiError;
  /** The rows the populate is read for: the answer's own (empty), or the objects under these keys. */
  level: LevelStep[];
}

type Json = unknown;

function below(values: Json[], step: LevelStep): Json[] {
  const out: Json[] = [];
  for (const v of values) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const x = (v as Record<string, Json>)[step.key];
    for (const item of Array.isArray(x) ? x : [x]) {
      if (!item || typeof item !== 'object') continue;
      if (step.component && (item as Record<string, Json>).__component !== step.component) continue;
      out.push(item);
    }
  }
  return out;
}

/**
 * The first kept error whose level holds a row in `data` (the answer's `data` as JSON text: a list's rows
 * joined by commas, or one row; null when there is none), else null.
 */
export function standingError(deferred: readonly DeferredError[], shape: 'list' | 'one', data: string | null): ApiError | null {
  if (!deferred.length || data === null || data === '' || data === 'null') return null;
  const rows = (shape === 'list' ? JSON.parse(`[${data}]`) : [JSON.parse(data)]) as Json[];
  for (const d of deferred) {
    let level = rows;
    for (const step of d.level) level = below(level, step);
    if (level.length) return d.error;
  }
  return null;
}
