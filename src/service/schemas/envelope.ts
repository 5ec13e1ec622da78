/** Response envelopes of both families (section 7 of the interface, and /v1's {success, data}). */
import { z } from 'zod';

/**
 * Codes in first-family envelopes. The hosted service publishes no catalogue; the client maps
 * these (and HTTP statuses with the same numbers) to typed errors, and the local service answers
 * with them.
 */
export const SERVICE_CODES = {
  ok: 200,
  badRequest: 400,
  unauthorized: 401,
  /** Monthly MessageLimit reached. */
  quotaExceeded: 402,
  forbidden: 403,
  notFound: 404,
  /** RateLimitCount per RateLimitTime exceeded; Message is the chatbot's RateLimitMessage. */
  rateLimited: 429,
  internal: 500,
} as const;

export const API_VERSION = '1.0.0';

/** What the client reads before knowing whether Data is there: lenient on Version/Data. */
export const envelopeHeadSchema = z.object({
  Data: z.unknown().optional(),
  Version: z.string().optional(),
  Success: z.boolean(),
  Code: z.number().int(),
  Message: z.string().nullable().optional(),
});

export type Envelope<T> = { Data: T; Version: string; Success: boolean; Code: number; Message: string };

/** Builds a success envelope (local service, fakes). */
export function okEnvelope<T>(data: T): Envelope<T> {
  return { Data: data, Version: API_VERSION, Success: true, Code: SERVICE_CODES.ok, Message: '' };
}

/** Builds a failure envelope (local service, fakes). */
export function errorEnvelope(code: number, message: string): Envelope<null> {
  return { Data: null, Version: API_VERSION, Success: false, Code: code, Message: message };
}

/** /v1 failure: {success: false, error: {code, message}}. */
export const v1ErrorSchema = z.object({
  success: z.literal(false),
  error: z.object({ code: z.union([z.string(), z.number()]), message: z.string() }),
});

/** Machine codes of /v1 errors (the local service answers with them; the client maps them). */
export const V1_ERROR_CODES = {
  badRequest: 'bad_request',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  rateLimited: 'rate_limited',
  quotaExceeded: 'quota_exceeded',
  internal: 'internal_error',
} as const;
