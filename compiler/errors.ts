// Errors that become Strapi's error envelope `{data: null, error: {status, name, message, details}}`.
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly errorName: string,
    message: string,
    /** null: Strapi sends no `details` key (e.g. for JSON syntax errors). */
    public readonly details: Record<string, unknown> | null = {},
  ) { super(message); }
}

/** One of yup's errors as Strapi lists them in `details.errors` (its formatYupErrors). */
export interface FieldError { path: string[]; message: string; name: 'ValidationError'; value?: unknown }

/** yup's ValidationError as Strapi answers it: the one error's message, or "N errors occurred"; every error in details. */
export function fieldErrors(errors: FieldError[]): ApiError {
  return new ApiError(400, 'ValidationError', errors.length === 1 ? errors[0].message : `${errors.length} errors occurred`, { errors });
}

/**
 * Strapi's relations store check: `count` entries of type `uid` a write names by id do not exist (its words,
 * checked live). Its `value`, the entry as Strapi's validation saw it, is the caller's (src/rest/strapi-entry.ts).
 */
export function missingEntries(count: number, uid: string): FieldError {
  return { path: [], message: `${count} relation(s) of type ${uid} associated with this entity do not exist`, name: 'ValidationError' };
}

/** Strapi's unique validator: a published row of another document holds `value` (at `path`). */
export function uniqueError(path: string[], value: unknown): FieldError {
  return { path, message: 'This attribute must be unique', name: 'ValidationError', value };
}

/** Strapi's "Invalid key" error for a query parameter naming something the model does not have. */
export function invalidKey(param: string, key: string, path: string | null): ApiError {
  return new ApiError(400, 'ValidationError', path && path !== key ? `Invalid key ${key} at ${path}` : `Invalid key ${key}`,
    { key, path, source: 'query', param });
}

export const validation = (message: string, details: Record<string, unknown> = {}) => new ApiError(400, 'ValidationError', message, details);
export const notFound = () => new ApiError(404, 'NotFoundError', 'Not Found', {});
/** The database or a worker cannot answer now: the front end adds Retry-After. */
export const serviceUnavailable = (message = 'Service Unavailable') => new ApiError(503, 'ServiceUnavailableError', message, {});
export const forbidden = () => new ApiError(403, 'ForbiddenError', 'Forbidden', {});
export const unauthorized = () => new ApiError(401, 'UnauthorizedError', 'Missing or invalid credentials', {});

export function envelope(e: ApiError): string {
  const error = e.details === null ? { status: e.status, name: e.errorName, message: e.message } : { status: e.status, name: e.errorName, message: e.message, details: e.details };
  return JSON.stringify({ data: null, error });
}
