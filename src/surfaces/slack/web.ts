/**
 * The Slack Web API client with a bounded retry policy. The SDK's default retries for about half an
 * hour, which would hold an answer hostage; here a few quick retries on network errors, and a 429 is
 * handed up at once as PlatformRateLimitError so the gateway's scheduler (which owns the budgets)
 * decides when to try again.
 */
import { LogLevel, type webApi, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import { PlatformRateLimitError } from '../../core/surface';
import { ImageSafeWebClient } from './image-retry';

/**
 * The SDK's debug dumps of whole requests and results carry everything posted (users' questions,
 * answers, an API key shown to an admin): at debug level only their size is logged.
 */
const DUMP = /^(http request body|http request result|http request headers): /;

function sdkLine(msg: unknown[]): string {
  const text = msg.map(String).join(' ');
  const dump = DUMP.exec(text);
  return dump ? `${dump[1]} (${text.length - dump[0].length} chars, not logged)` : text;
}

export function slackLogger(log: Logger): SlackLogger {
  let level: LogLevel = LogLevel.WARN;
  return {
    debug: (...msg: unknown[]) => log.debug({ slack: sdkLine(msg) }),
    info: (...msg: unknown[]) => log.debug({ slack: sdkLine(msg) }),
    // The SDK warns on every post without top-level text; placeholders have none on purpose.
    warn: (...msg: unknown[]) => {
      const text = sdkLine(msg);
      if (text.includes('top-level `text`')) log.debug({ slack: text });
      else log.warn({ slack: text });
    },
    error: (...msg: unknown[]) => log.error({ slack: sdkLine(msg) }),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

export type WebClient = webApi.WebClient;

/**
 * SLACK_API_URL as the Web API client takes it (`slackApiUrl`: the base the method names follow,
 * Slack's own is https://slack.com/api/). A bare origin is ambiguous: a proxy may serve the methods
 * at its root, or at /api/ like Slack. Then one auth.test decides: /api/ when only it answers.
 */
export async function resolveApiUrl(
  apiUrl: string | undefined,
  token: string,
  log: Logger,
): Promise<string | undefined> {
  if (!apiUrl) return apiUrl;
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return apiUrl;
  }
  if (url.pathname !== '/' && url.pathname !== '') return apiUrl;
  const status = async (base: string): Promise<number | undefined> => {
    try {
      const res = await fetch(`${base}auth.test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        signal: AbortSignal.timeout(5_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status;
    } catch {
      return undefined;
    }
  };
  const root = `${url.origin}/`;
  if ((await status(root)) !== 404) return apiUrl;
  const api = `${url.origin}/api/`;
  const apiStatus = await status(api);
  if (apiStatus === undefined || apiStatus === 404) return apiUrl;
  log.info({ apiUrl: api }, 'slack: SLACK_API_URL has no path and the Web API answers under /api/: using it');
  return api;
}

/**
 * The retry policy of every Slack Web API client the surface makes (its own and Bolt's): a few quick
 * retries of what may pass on a second try (a network error, a 5xx). An HTTP answer that says the
 * method is not there (404, 405, 410, 501) will say so again: it goes up at once. The SDK hands
 * this object to p-retry, which stops retrying when `onFailedAttempt` throws.
 */
export const SLACK_RETRY_POLICY: webApi.RetryOptions & { onFailedAttempt: (err: unknown) => void } = {
  retries: 2,
  factor: 2,
  minTimeout: 200,
  maxTimeout: 1_000,
  maxRetryTime: 5_000,
  randomize: true,
  onFailedAttempt: (err) => {
    if (isMissingMethodStatus(httpStatus(err))) throw err;
  },
};

export function createWebClient(token: string | undefined, apiUrl: string | undefined, log: Logger): WebClient {
  return new ImageSafeWebClient(token, {
    slackApiUrl: apiUrl,
    logger: slackLogger(log),
    retryConfig: SLACK_RETRY_POLICY,
    rejectRateLimitedCalls: true,
    timeout: 15_000,
  });
}

/** The platform's error code (`unknown_method`, `msg_too_long` ...) when the call failed with one. */
export function slackErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const data = (err as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** The HTTP status when a call failed at the HTTP level (Slack itself answers 200 with `ok: false`). */
export function httpStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  return e.code === 'slack_webapi_http_error' && typeof e.statusCode === 'number' ? e.statusCode : undefined;
}

/**
 * The method does not exist where the client points: Slack says `unknown_method` (HTTP 200); a
 * proxy or a partial implementation of the Web API answers 404 (or 405/410/501) instead.
 */
export function isMissingMethod(err: unknown): boolean {
  return slackErrorCode(err) === 'unknown_method' || isMissingMethodStatus(httpStatus(err));
}

function isMissingMethodStatus(status: number | undefined): boolean {
  return status === 404 || status === 405 || status === 410 || status === 501;
}

/** Turn the SDK's rate-limited error into core's PlatformRateLimitError; others pass through. */
export function translateError(err: unknown): unknown {
  if (
    typeof err === 'object' &&
    err !== null &&
    (err as { code?: unknown }).code === 'slack_webapi_rate_limited_error'
  ) {
    const sec = Number((err as { retryAfter?: unknown }).retryAfter);
    return new PlatformRateLimitError(Number.isFinite(sec) && sec > 0 ? sec * 1000 : 1000);
  }
  return err;
}

/** Run a Web API call, translating rate limits. */
export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateError(err);
  }
}
