// The upload routes' own query parameters, checked as Strapi 5.54 checks them before its content-API query
// (recorded in test/fixtures/upload-files): the list's top-level `start`/`limit` (Strapi's query-params
// transform; `pagination` is none of the list's parameters and is ignored) and the page's pagination checks
// of the upload service's findPage. Filters, sort, fields and populate are the content API's (files-query.ts).
import type { QueryValue } from '../../compiler/querystring.ts';
import { validation } from '../../compiler/errors.ts';
import { refuseTopLevelPage, serviceWithCount } from '../../compiler/params.ts';

/** A top-level `start` or `limit`, as Strapi's query-params transform converts it (null: not given). */
export function offsetParam(v: QueryValue | undefined, name: 'Start' | 'Limit'): number | null {
  if (v === undefined) return null;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  // -1 is Strapi's "no limit".
  if (name === 'Limit' && n === -1) return null;
  if (!Number.isSafeInteger(n) || n < 0) throw validation(`convert${name}QueryParams expected a positive integer got ${n}`);
  return n;
}

/**
 * The page (findPage: the upload service's findAndCountPage): top-level page parameters are refused as
 * Strapi's transform refuses them beside the start and limit it is given, and `withCount` takes the upload
 * service's own check; the rest of `pagination` is a REST collection's (page or offset, defaultLimit, maxLimit).
 */
export function checkPageParams(q: { [k: string]: QueryValue }): void {
  refuseTopLevelPage(q);
  const p = q.pagination;
  const withCount = p && typeof p === 'object' && !Array.isArray(p) ? p.withCount : undefined;
  if (withCount !== undefined) serviceWithCount(withCount);
}
