/**
 * The Slack Web API client with a bounded retry policy. The SDK's default retries for about half an
 * hour, which would hold an answer hostage; here a few quick retries on network errors, and a 429 is
 * handed up at once as PlatformRateLimitError so the relay's scheduler (which owns the budgets)
 * decides when to try again.
 */
import { LogLevel, webApi, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import { PlatformRateLimitError } from '../../core/surface';

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

export function createWebClient(token: string, apiUrl: string | undefined, log: Logger): WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: apiUrl,
    logger: slackLogger(log),
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1_000, maxRetryTime: 5_000, randomize: true },
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

/** Turn the SDK's rate-limited error into core's PlatformRateLimitError; others pass through. */
export function translateError(err: unknown): unknown {
  if (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'slack_webapi_rate_limited_error') {
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
