/**
 * The HTTP layer under ChatbotClient: one axios instance, bounded retries (axios-retry) chosen per
 * call, timeouts, and axios failures translated into the typed errors of errors.ts.
 */
import type { Readable } from 'node:stream';
import axios, { AxiosError, type AxiosInstance, type AxiosResponse, type Method } from 'axios';
import axiosRetry, { retryAfter } from 'axios-retry';
import type { z } from 'zod';
import { NetworkError, RequestValidationError, ServiceError, TimeoutError } from './errors';
import { errorFromBody, errorFromCode } from './failures';
import { envelopeHeadSchema } from './schemas/envelope';
import { fieldIssues } from './schemas/fields';

/**
 * - 'read': idempotent; retried on any failure before a response, and on 502/503/504.
 * - 'session': GetSession; an extra unused session is harmless, so retried on network and any 5xx.
 * - 'none': the service may have acted on it (ClientAsk, sendMessage, creates, updates, deletes);
 *   retried only when the connection was never made.
 */
export type RetryPolicy = 'read' | 'session' | 'none';

export interface RetrySettings {
  count: number;
  baseDelayMs: number;
}

export interface CallSpec {
  operation: string;
  method: Method;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  params?: Record<string, string | number | boolean | undefined>;
  retry: RetryPolicy;
  timeoutMs?: number;
}

const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);
const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT']);

function neverConnected(err: AxiosError): boolean {
  return !err.response && err.code !== undefined && NEVER_CONNECTED.has(err.code);
}

/**
 * The longest Retry-After the client waits for. A service asking for more (`Retry-After: 3600`) is
 * not waited on: the call fails at once and the user is told, instead of a thread stalling for an hour.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

function retryCondition(policy: RetryPolicy): (err: AxiosError) => boolean {
  return (err) => {
    if (err.code === AxiosError.ERR_CANCELED) return false;
    if (retryAfter(err) > MAX_RETRY_AFTER_MS) return false;
    if (neverConnected(err)) return true;
    if (policy === 'none') return false;
    const status = err.response?.status;
    if (status === undefined) return !TIMEOUT_CODES.has(err.code ?? '');
    if (policy === 'session') return status >= 500;
    return status === 502 || status === 503 || status === 504;
  };
}

/** Validates a request body with its schema; a bad request is never sent. */
export function validate<S extends z.ZodTypeAny>(operation: string, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(operation, fieldIssues(result.error));
  return result.data as z.output<S>;
}

/** Decodes a successful answer's payload; a shape we can't read is the service's fault. */
export function decode<S extends z.ZodTypeAny>(operation: string, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const detail = fieldIssues(result.error)
      .slice(0, 3)
      .map((i) => i.message)
      .join('; ');
    throw new ServiceError(
      operation,
      'bad_response',
      `the chatbot service answered ${operation} in an unexpected shape (${detail})`,
    );
  }
  return result.data as z.output<S>;
}

async function readAll(stream: Readable, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > limit) break;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseMaybeJson(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

export class HttpCore {
  readonly axios: AxiosInstance;

  constructor(
    readonly timeoutMs: number,
    readonly retry: RetrySettings,
  ) {
    this.axios = axios.create({ maxBodyLength: Infinity, maxContentLength: 50 * 1024 * 1024, maxRedirects: 0 });
    axiosRetry(this.axios, { retries: 0, shouldResetTimeout: true });
  }

  private retryConfig(policy: RetryPolicy) {
    return {
      retries: this.retry.count,
      retryCondition: retryCondition(policy),
      // exponentialDelay adds up to 20% random jitter and honours Retry-After.
      // (capped: a longer Retry-After is refused by retryCondition before it gets here)
      retryDelay: (n: number, err: AxiosError) =>
        Math.min(MAX_RETRY_AFTER_MS, axiosRetry.exponentialDelay(n, err, this.retry.baseDelayMs)),
      shouldResetTimeout: true,
    };
  }

  /** A JSON call; resolves with the parsed body of a 2xx answer, or throws a typed error. */
  async json(spec: CallSpec): Promise<unknown> {
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    try {
      const res = await this.axios.request({
        method: spec.method,
        url: spec.url,
        headers: { Accept: 'application/json', ...spec.headers },
        data: spec.body,
        params: spec.params,
        timeout: timeoutMs,
        'axios-retry': this.retryConfig(spec.retry),
      });
      return parseMaybeJson(res.data);
    } catch (err) {
      throw await this.translate(spec.operation, err, timeoutMs);
    }
  }

  /** Sends raw bytes (the presigned upload). */
  async putBytes(spec: Omit<CallSpec, 'body' | 'method'> & { bytes: Buffer }): Promise<void> {
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    try {
      await this.axios.request({
        method: 'PUT',
        url: spec.url,
        headers: spec.headers,
        data: spec.bytes,
        timeout: timeoutMs,
        transformRequest: [(d: unknown) => d],
        'axios-retry': this.retryConfig(spec.retry),
      });
    } catch (err) {
      throw await this.translate(spec.operation, err, timeoutMs);
    }
  }

  /**
   * A streamed call: resolves once headers arrive (within the call timeout) with the body stream
   * and a cancel function. Error statuses are read and thrown as typed errors.
   */
  async stream(
    spec: CallSpec,
    signal?: AbortSignal,
  ): Promise<{ body: Readable; cancel: () => void; response: AxiosResponse }> {
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const headerTimer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(headerTimer);
      signal?.removeEventListener('abort', onAbort);
    };
    try {
      const response = await this.axios.request<Readable>({
        method: spec.method,
        url: spec.url,
        headers: { Accept: 'text/event-stream, application/x-ndjson, application/json', ...spec.headers },
        data: spec.body,
        params: spec.params,
        responseType: 'stream',
        signal: controller.signal,
        // The header wait is timed here; the body is timed per fragment by the stream reader.
        timeout: 0,
        'axios-retry': this.retryConfig(spec.retry),
      });
      clearTimeout(headerTimer);
      const body = response.data;
      return {
        body,
        response,
        cancel: () => {
          cleanup();
          if (!body.destroyed) body.destroy();
          controller.abort();
        },
      };
    } catch (err) {
      cleanup();
      if (timedOut) throw new TimeoutError(spec.operation, timeoutMs);
      if (axios.isAxiosError(err) && err.code === AxiosError.ERR_CANCELED) {
        const abortErr = new Error(`${spec.operation}: cancelled`);
        abortErr.name = 'AbortError';
        throw abortErr;
      }
      throw await this.translate(spec.operation, err, timeoutMs);
    }
  }

  /** axios failure -> typed error. */
  async translate(operation: string, err: unknown, timeoutMs: number): Promise<Error> {
    if (!axios.isAxiosError(err)) return err instanceof Error ? err : new Error(String(err));
    const res = err.response;
    if (res) {
      let data: unknown = res.data;
      if (data && typeof (data as Readable).pipe === 'function') {
        data = await readAll(data as Readable).catch(() => '');
      }
      data = parseMaybeJson(data);
      const typed = errorFromBody(operation, data, res.status);
      const head = envelopeHeadSchema.safeParse(data);
      const error =
        typed ??
        (head.success
          ? errorFromCode(operation, head.data.Code, head.data.Message, res.status)
          : errorFromCode(
              operation,
              res.status,
              `the chatbot service answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} to ${operation}`,
              res.status,
            ));
      const waitMs = retryAfter(err);
      if (waitMs > MAX_RETRY_AFTER_MS) {
        error.message = `${error.message} (the chatbot service asked to wait ${Math.round(waitMs / 1000)} s, longer than the bridge waits: please try again later)`;
      }
      return error;
    }
    if (TIMEOUT_CODES.has(err.code ?? '')) return new TimeoutError(operation, timeoutMs);
    const code = err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
    return new NetworkError(
      operation,
      `${operation}: could not reach the chatbot service (${code ?? err.message})`,
      code,
      { cause: err },
    );
  }
}
