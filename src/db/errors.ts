// What a failure thrown while handling a request means to the client: Strapi's error envelope for
// input PostgreSQL refused, 503 for a database that cannot answer now, 500 for the rest (logged).
import { ApiError, serviceUnavailable } from '../../compiler/errors.ts';
import { log } from '../log.ts';

/**
 * Errors that mean the database cannot answer now (cancelled, shutting down, unreachable), or that a
 * write met others past its retries (deadlock, serialization failure, a lock held: src/rest/write.ts runs
 * it again first): 503 with Retry-After, not 500 — the request was right, the client may send it again.
 */
const UNAVAILABLE = new Set([
  '40P01', '40001', '55P03', '57014', '57P01', '57P02', '57P03', '57P04', '57P05', '53300', '08000', '08001', '08003', '08004', '08006',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'CONNECTION_DEADLINE', 'CLIENT_GONE',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN',
]);

/** Messages for input PostgreSQL refused (SQLSTATE classes 22 and 23) that validation let through. */
const PG_INPUT_ERRORS: Record<string, string> = {
  '22001': 'A value is too long', '22003': 'A number is out of range', '22007': 'Invalid date or time', '22008': 'A date or time is out of range',
  '22P02': 'Invalid value for the attribute type', '22P05': 'Invalid character in a value', '22021': 'Invalid character in a value',
  '22012': 'Division by zero', '2201B': 'Invalid regular expression', '22025': 'Invalid escape in a pattern', '22019': 'Invalid escape character',
  '23505': 'This attribute must be unique', '23503': 'A related entry does not exist', '23502': 'A required value is missing',
};

/**
 * PostgreSQL could not build a text value past its 1 GB limit (a read's JSON growing past it: SQLSTATE 53200
 * "Cannot enlarge string buffer", or an allocation over the limit). Such a read's answer is larger than
 * any http.maxResponseSize allows: the caller refuses it as too large (a 400), not as a failure (a 500).
 */
export function isTextOverflow(e: unknown): boolean {
  const pg = e as { code?: unknown; detail?: unknown; message?: unknown } | null;
  if (pg?.code === '53200') return typeof pg.detail === 'string' && pg.detail.startsWith('Cannot enlarge string buffer');
  return pg?.code === '54000' || (pg?.code === 'XX000' && typeof pg.message === 'string' && pg.message.startsWith('invalid memory alloc request size'));
}

/** The database cannot answer now (→ 503 with Retry-After). */
export function isUnavailable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE.has(code);
}

/** A failure PostgreSQL or the connection reported (input refused or the database unavailable), not a bug. */
export function isDatabaseFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (/^(22|23)/.test(code) || UNAVAILABLE.has(code));
}

/** Anything thrown that is not an ApiError is a bug or an infrastructure failure: log it, answer 500. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const pg = e as { code?: string; message?: string };
  // Invalid input that slipped past validation must not become a 500.
  // PostgreSQL's own text never reaches a client: the answer names the kind of problem.
  if (pg?.code && /^(22|23)/.test(pg.code)) return new ApiError(400, 'ValidationError', PG_INPUT_ERRORS[pg.code] ?? 'Invalid input', {});
  // Cancelled by statement_timeout, or the database is going away: the client may retry later.
  if (pg?.code && UNAVAILABLE.has(pg.code)) {
    // A statement cancelled because its client went away: nobody reads the answer, nothing to report.
    if (pg.code !== 'CLIENT_GONE' && !(pg.code === '57014' && pg.message?.includes('user request'))) log.warn('database unavailable', { code: pg.code, message: pg.message });
    return serviceUnavailable();
  }
  log.error('unhandled error', { error: String((e as Error)?.stack ?? e) });
  // Strapi's formatInternalError: an http-errors 500, whose envelope has no details.
  return new ApiError(500, 'InternalServerError', 'Internal Server Error', null);
}
