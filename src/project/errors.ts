// Strapi's `@strapi/utils` errors, as a project's code throws them: the same names, default messages and
// class tree (PolicyError is a ForbiddenError), each an ApiError carrying the status Strapi's error
// middleware gives it (formatApplicationError: 401, 403, 404, 413, 429, 501, else 400), so a throw
// anywhere in a project's code becomes Strapi's envelope.
import { STATUS_CODES } from 'node:http';
import { ApiError } from '../../compiler/errors.ts';

type Details = Record<string, unknown>;

export class ApplicationError extends ApiError {
  constructor(message = 'An application error occurred', details: Details = {}, status = 400) {
    super(status, 'ApplicationError', message, details ?? {});
    linkName(this);
  }
}

/**
 * Strapi answers with `error.name`, which a project's own subclass may set after construction: `name` is
 * kept as the envelope's `errorName`.
 */
function linkName(e: ApiError): void {
  const self = e as { errorName: string };
  Object.defineProperty(e, 'name', { get: () => self.errorName, set: (v: string) => { self.errorName = v; }, enumerable: false, configurable: true });
}

function named<T extends ApplicationError>(e: T, name: string): T { e.name = name; return e; }

export class ValidationError extends ApplicationError {
  constructor(message: string, details?: Details) { super(message, details); named(this, 'ValidationError'); }
}
export class PaginationError extends ApplicationError {
  constructor(message = 'Invalid pagination', details?: Details) { super(message, details); named(this, 'PaginationError'); }
}
export class NotFoundError extends ApplicationError {
  constructor(message = 'Entity not found', details?: Details) { super(message, details, 404); named(this, 'NotFoundError'); }
}
export class ForbiddenError extends ApplicationError {
  constructor(message = 'Forbidden access', details?: Details) { super(message, details, 403); named(this, 'ForbiddenError'); }
}
export class UnauthorizedError extends ApplicationError {
  constructor(message = 'Unauthorized', details?: Details) { super(message, details, 401); named(this, 'UnauthorizedError'); }
}
export class RateLimitError extends ApplicationError {
  constructor(message = 'Too many requests, please try again later.', details?: Details) { super(message, details, 429); named(this, 'RateLimitError'); }
}
export class PayloadTooLargeError extends ApplicationError {
  constructor(message = 'Entity too large', details?: Details) { super(message, details, 413); named(this, 'PayloadTooLargeError'); }
}
export class PolicyError extends ForbiddenError {
  constructor(message = 'Policy Failed', details?: Details) { super(message, details); named(this, 'PolicyError'); }
}
export class NotImplementedError extends ApplicationError {
  constructor(message = 'This feature is not implemented yet', details?: Details) { super(message, details, 501); named(this, 'NotImplementedError'); }
}

/**
 * http-errors' HttpError as Strapi's ctx.badRequest()/ctx.throw() make it: the status's own name
 * (`BadRequestError`, `NotFoundError`…) and message, answered as formatHttpError does.
 */
export class HttpError extends ApiError {
  /** `details` null: the envelope has none (ctx.throw without details, as http-errors leaves it undefined). */
  constructor(status: number, message?: string, details: Details | null = {}) {
    super(status, httpErrorName(status), message ?? STATUS_TEXT[status] ?? 'Error', details);
    linkName(this);
  }
}

/** node:http's reason phrases (what http-errors uses), for the statuses ctx's helpers cover. */
const STATUS_TEXT: Record<number, string> = STATUS_CODES as Record<number, string>;

/** http-errors' class name: the reason phrase in PascalCase, `Error` appended unless it ends with it. */
export function httpErrorName(status: number): string {
  const text = STATUS_TEXT[status];
  if (!text) return 'Error';
  const base = text.split(' ').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('').replace(/[^ _0-9a-z]/gi, '');
  return base.endsWith('Error') ? base : `${base}Error`;
}

/** What `require('@strapi/utils').errors` gives a project. */
export const errors = {
  ApplicationError, ValidationError, PaginationError, NotFoundError, ForbiddenError, UnauthorizedError, RateLimitError,
  PayloadTooLargeError, PolicyError, NotImplementedError, HttpError,
  /** yup is not bundled: a project that builds one gets a ValidationError with its message. */
  YupValidationError: class extends ValidationError { constructor(e: { message?: string }, message?: string) { super(message ?? e?.message ?? 'Validation'); } },
};
