import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SERVICE_CODES } from '../../service/schemas';
import type { ChatbotRecord } from '../chatbots/chatbots-repo';
import type { ServiceContext } from './context';
import { Failure } from './failure';

/** Which first-family credential an operation takes (section 5 and service-notes.md). */
export type FirstFamilyCredential = 'secret' | 'session' | 'either';

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

const digests = new Map<string, Buffer>();
const digest = (s: string): Buffer => crypto.createHash('sha256').update(s).digest();

/** Constant-time comparison (hashing evens out the lengths); the expected keys' digests are kept. */
export function sameSecret(given: string, expected: string): boolean {
  let b = digests.get(expected);
  if (!b) {
    b = digest(expected);
    digests.set(expected, b);
  }
  return crypto.timingSafeEqual(digest(given), b);
}

/** Throws the envelope refusal unless the request carries a credential the operation accepts. */
export function checkFirstFamily(ctx: ServiceContext, req: FastifyRequest, needs: FirstFamilyCredential): void {
  const secret = header(req, 'authorization');
  const session = header(req, 'chatrobot-sessionkey');
  const secretOk = secret !== undefined && sameSecret(secret, ctx.credentials.secretKey);
  const sessionOk = session !== undefined && sameSecret(session, ctx.credentials.sessionKey);
  if (needs === 'secret') {
    if (secretOk) return;
    if (secret === undefined)
      throw unauthorized('Missing credentials: send the secret key in the Authorization header');
    throw forbidden('The secret key in the Authorization header is not valid');
  }
  if (needs === 'session') {
    if (sessionOk) return;
    if (session === undefined)
      throw unauthorized('Missing credentials: send the session key in the chatrobot-sessionkey header');
    throw forbidden('The session key in the chatrobot-sessionkey header is not valid');
  }
  if (secretOk || sessionOk) return;
  if (secret === undefined && session === undefined) {
    throw unauthorized(
      'Missing credentials: send the secret key in Authorization or the session key in chatrobot-sessionkey',
    );
  }
  throw forbidden('The credentials sent (Authorization / chatrobot-sessionkey) are not valid');
}

const unauthorized = (m: string): Failure => new Failure(SERVICE_CODES.unauthorized, m, 401);
const forbidden = (m: string): Failure => new Failure(SERVICE_CODES.forbidden, m, 403);

/** Who a /v1 bearer key is: the account (everything) or one chatbot (only that chatbot). */
export type V1Principal = { kind: 'account' } | { kind: 'chatbot'; chatbot: ChatbotRecord };

export function checkV1(ctx: ServiceContext, req: FastifyRequest): V1Principal {
  const auth = header(req, 'authorization');
  if (auth === undefined) throw unauthorized('Missing credentials: send Authorization: Bearer <API key>');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!m) throw unauthorized('The Authorization header must be "Bearer <API key>"');
  if (sameSecret(m[1], ctx.credentials.apiKey)) return { kind: 'account' };
  const chatbot = ctx.chatbots.byApiKey(m[1]);
  if (chatbot) return { kind: 'chatbot', chatbot };
  throw unauthorized('The API key is not valid');
}

/** A chatbot-scoped key may only touch its own chatbot. */
export function mayTouch(p: V1Principal, chatbotId: string): boolean {
  return p.kind === 'account' || p.chatbot.id === chatbotId;
}
