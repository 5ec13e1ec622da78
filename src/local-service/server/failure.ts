import type { z } from 'zod';
import { describeIssues, fieldIssues, SERVICE_CODES, V1_ERROR_CODES } from '../../service/schemas';

/**
 * A refusal the service answers with: `code` goes into the envelope's Code (first family) and
 * `httpStatus` onto the wire. Business refusals travel as HTTP 200 with Success false, as the
 * interface puts them in Code/Message; credentials and unreadable bodies use the HTTP status too.
 */
export class Failure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus: number = 200,
  ) {
    super(message);
    this.name = 'Failure';
  }
}

export const badRequest = (message: string): Failure => new Failure(SERVICE_CODES.badRequest, message);
export const notFound = (message: string): Failure => new Failure(SERVICE_CODES.notFound, message);

/** /v1's machine code for an HTTP status. */
export function v1CodeOf(status: number): string {
  switch (status) {
    case 400:
    case 413:
    case 415:
      return V1_ERROR_CODES.badRequest;
    case 401:
      return V1_ERROR_CODES.unauthorized;
    case 402:
      return V1_ERROR_CODES.quotaExceeded;
    case 403:
      return V1_ERROR_CODES.forbidden;
    case 404:
      return V1_ERROR_CODES.notFound;
    case 429:
      return V1_ERROR_CODES.rateLimited;
    default:
      return V1_ERROR_CODES.internal;
  }
}

/**
 * Validates a request body (or query) against the shared schema. A body that is not a JSON object
 * gets its own message; every other problem is listed with the field it concerns.
 */
export function parseWith<S extends z.ZodTypeAny>(schema: S, value: unknown, what = 'body'): z.output<S> {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got =
      value === undefined
        ? 'nothing'
        : value === null
          ? 'null'
          : Array.isArray(value)
            ? 'an array'
            : `a ${typeof value}`;
    throw badRequest(`The request ${what} must be a JSON object; got ${got}`);
  }
  const r = schema.safeParse(value);
  if (!r.success) throw badRequest(describeIssues(fieldIssues(r.error)));
  return r.data as z.output<S>;
}
