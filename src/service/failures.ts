/** Turning what the service said "no" with (envelopes, /v1 errors, HTTP statuses) into typed errors. */
import { envelopeHeadSchema, SERVICE_CODES, v1ErrorSchema, V1_ERROR_CODES } from './schemas/envelope';
import { QuotaExceededError, RateLimitedError, ServiceError } from './errors';

// The hosted service publishes no code catalogue: a monthly-cap refusal is recognised by its code
// (the local service's 402) or by wording.
const QUOTA_WORDS = /\b(monthly|per month|quota|message limit)\b/i;

export function errorFromCode(
  operation: string,
  code: number | string,
  rawMessage: string | null | undefined,
  httpStatus?: number,
): ServiceError {
  const message =
    rawMessage && rawMessage.trim() !== '' ? rawMessage : `the chatbot service refused ${operation} (code ${code})`;
  const quota =
    code === SERVICE_CODES.quotaExceeded ||
    code === V1_ERROR_CODES.quotaExceeded ||
    httpStatus === SERVICE_CODES.quotaExceeded ||
    (typeof rawMessage === 'string' &&
      QUOTA_WORDS.test(rawMessage) &&
      (code === 429 || httpStatus === 429 || code === 403));
  if (quota) return new QuotaExceededError(operation, code, message, httpStatus);
  if (code === SERVICE_CODES.rateLimited || code === V1_ERROR_CODES.rateLimited || httpStatus === 429) {
    return new RateLimitedError(operation, code, message, httpStatus);
  }
  return new ServiceError(operation, code, message, httpStatus);
}

/** A failure body of either family, or undefined when the body is neither. */
export function errorFromBody(operation: string, body: unknown, httpStatus?: number): ServiceError | undefined {
  const head = envelopeHeadSchema.safeParse(body);
  if (head.success && !head.data.Success)
    return errorFromCode(operation, head.data.Code, head.data.Message, httpStatus);
  const v1 = v1ErrorSchema.safeParse(body);
  if (v1.success) return errorFromCode(operation, v1.data.error.code, v1.data.error.message, httpStatus);
  return undefined;
}

/** Case-insensitive member access: the hosted service's casing varies between answers. */
export function lowerKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = k.toLowerCase();
    if (!(key in out)) out[key] = v;
  }
  return out;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
