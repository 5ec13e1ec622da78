/**
 * Nothing internal reaches a user. What a failure may say in chat is this one table: errors written
 * for the person (a usage mistake, a refusal, a field the service would not accept, the service's
 * own refusal words, the service being down), each in its line below. Anything else (a store's
 * error, a record that will not decrypt, a bug) is told as "Something went wrong (ref 7f3a)", and
 * the same ref is logged beside the detail, so an operator finds the one line the person quotes.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  NetworkError,
  QuotaExceededError,
  RateLimitedError,
  RequestValidationError,
  ServiceError,
  TimeoutError,
} from '../service/errors';
import { isPlatformRateLimit } from './platform-rate-limit';

/** An error whose message was written for the person who caused it: shown as it is. */
export class UserFacingError extends Error {
  /** The words shown in chat (the message, unless a subclass adds to it). */
  userText(): string {
    return this.message;
  }
}

/** The lines a failure may be told with; every other failure is `somethingWentWrong`. */
export const USER_MESSAGES = {
  somethingWentWrong: (ref: string) => `Something went wrong (ref ${ref})`,
  notAccepted: (issues: readonly string[]) =>
    `Some values were not accepted:\n${issues.map((i) => `• ${i}`).join('\n')}`,
  serviceRefused: (words: string) => `The chatbot service refused: ${words}`,
  serviceUnreachable: 'The chatbot service could not be reached. Try again in a moment.',
  serviceTooSlow: 'The chatbot service did not answer in time. Try again in a moment.',
  platformRateLimited: 'The chat platform rate limited this bridge. Try again in a minute.',
  /** Where the bot may not start the answer's thread: it answers in the channel, and says why once a day. */
  noThreadHere: (permission: string) =>
    `I can't start a thread in this channel (I lack the ${permission} permission), so I'm answering here as replies.`,
  privateAnswerEnded:
    'This answer was yours alone, and Discord lets the bot reach it for 15 minutes only: it cannot be continued. Ask again with /ask.',
  notOurListing: 'That listing is not one of this workspace’s chatbot’s listings, so nothing was asked about it.',
} as const;

/** A short random reference (4 hex digits): enough to find one log line among a day's, and no more. */
export function newRef(): string {
  return randomBytes(2).toString('hex');
}

const INTERNAL_CODES: readonly (number | string)[] = ['bad_response', 'internal_error'];

/**
 * The service's refusal in its own words (its refusals are written for users and carry no keys:
 * service/errors.ts). The service failing (HTTP 5xx, an internal error, an answer our client cannot
 * read) is no refusal: its text is internal, told by reference.
 */
function serviceLine(err: ServiceError): string | undefined {
  if (err instanceof RateLimitedError || err instanceof QuotaExceededError) return err.message;
  if (err.httpStatus !== undefined && err.httpStatus >= 500) return undefined;
  if (INTERNAL_CODES.includes(err.code) || (typeof err.code === 'number' && err.code >= 500)) return undefined;
  return USER_MESSAGES.serviceRefused(err.message);
}

/** `line` ending as a sentence, so a caller can go on after it ("… (ref 7f3a). Please try again."). */
export function sentence(line: string): string {
  return /[.!?]$/.test(line) ? line : `${line}.`;
}

/** The table's line for `err`; undefined when it has none (then it is told by reference). */
export function knownLine(err: unknown): string | undefined {
  if (err instanceof UserFacingError) return err.userText();
  if (err instanceof RequestValidationError) return USER_MESSAGES.notAccepted(err.issues.map((i) => i.message));
  if (err instanceof ServiceError) return serviceLine(err);
  if (err instanceof TimeoutError) return USER_MESSAGES.serviceTooSlow;
  if (err instanceof NetworkError) return USER_MESSAGES.serviceUnreachable;
  if (isPlatformRateLimit(err)) return USER_MESSAGES.platformRateLimited;
  return undefined;
}

/**
 * What the person is told about `err`: its line of the table, or "Something went wrong (ref …)" with
 * the ref logged beside the detail (`fields` say where: the command, the tenant …).
 */
export function userMessage(log: Logger, err: unknown, fields: Record<string, unknown> = {}): string {
  const known = knownLine(err);
  if (known !== undefined) return known;
  return byReference(log, err, fields);
}

/** "Something went wrong (ref …)", whatever `err` is, with the ref logged beside it. */
export function byReference(
  log: Logger,
  err: unknown,
  fields: Record<string, unknown> = {},
  logMessage = 'failure told to the user by reference',
): string {
  const ref = newRef();
  log.error({ ...fields, err, ref }, `${logMessage} (ref ${ref})`);
  return USER_MESSAGES.somethingWentWrong(ref);
}

/** A failure that is logged whatever it is (as `logMessage`), and told by the table or by reference. */
export function loggedFailure(log: Logger, err: unknown, fields: Record<string, unknown>, logMessage: string): string {
  const known = knownLine(err);
  if (known === undefined) return byReference(log, err, fields, logMessage);
  log.error({ ...fields, err }, logMessage);
  return known;
}
