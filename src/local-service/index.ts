import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { errorEnvelope, SERVICE_CODES } from '../service/schemas';
import { BuiltinAnswerer } from './answerer/builtin';
import { LlmAnswerer, type LlmOptions } from './answerer/llm';
import type { Answerer } from './answerer/types';
import { ChatRepo } from './chat/chat-repo';
import { ChatbotsRepo } from './chatbots/chatbots-repo';
import { type Credentials, ensureDemoChatbot, resolveCredentials } from './db/bootstrap';
import { openDatabase } from './db/open';
import { ListingsRepo } from './listings/listings-repo';
import { registerChatRoutes } from './routes/chat-routes';
import { uploadRoutes } from './routes/upload-routes';
import { registerV1Routes } from './routes/v1-routes';
import type { ServiceContext, StreamFraming } from './server/context';
import { Failure, v1CodeOf } from './server/failure';
import { UploadsRepo } from './uploads/uploads-repo';

export type { Credentials } from './db/bootstrap';
export type { StreamFraming } from './server/context';

export interface LocalServiceOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** SQLite file; ':memory:' (default) keeps nothing. */
  dbPath?: string;
  secretKey?: string;
  sessionKey?: string;
  apiKey?: string;
  /** The demo chatbot's id, created with its listings on a new database. Default 'demo'. */
  chatbotId?: string;
  /** An OpenAI-compatible backend; without it the built-in deterministic answerer answers. */
  llm?: LlmOptions;
  /** 'sse' (default) or 'ndjson' (like the hosted service). */
  streamFraming?: StreamFraming;
  /** fastify's request logging (default off). */
  logger?: boolean;
  /** Pause between built-in answer fragments, to make streams observable in tests (default 0). */
  fragmentDelayMs?: number;
  /** Largest JSON body accepted (default 1 MiB). */
  bodyLimit?: number;
  /** Clock for the limits' windows (tests). */
  now?: () => number;
}

export interface LocalService {
  app: FastifyInstance;
  credentials: Credentials;
  /** Which credentials were generated now (not given, not found in the database). */
  generated: (keyof Credentials)[];
  chatbotId: string;
  context: ServiceContext;
}

export interface LocalServiceHandle {
  /** http://host:port */
  url: string;
  credentials: Credentials;
  chatbotId: string;
  close(): Promise<void>;
}

const isV1 = (req: FastifyRequest): boolean => req.url.startsWith('/v1/') || req.url === '/v1';

/** Answers a refusal in the family's own shape; never a stack trace. */
function sendFailure(
  req: FastifyRequest,
  reply: FastifyReply,
  code: number,
  message: string,
  httpStatus: number,
): FastifyReply {
  if (isV1(req)) {
    const status = httpStatus >= 400 ? httpStatus : code >= 400 && code < 600 ? code : 400;
    return reply.code(status).send({ success: false, error: { code: v1CodeOf(status), message } });
  }
  return reply.code(httpStatus).send(errorEnvelope(code, message));
}

function failureOfFastifyError(err: FastifyError): { code: number; message: string; status: number } {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 413, message: 'The request body is too large', status: 413 };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 415, message: 'Unsupported Content-Type; send application/json', status: 415 };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 400, message: 'The Content-Length header does not match the body', status: 400 };
    default:
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return { code: err.statusCode, message: err.message, status: err.statusCode };
  }
  return { code: SERVICE_CODES.internal, message: 'Internal error of the chatbot service', status: 500 };
}

/** Builds the service (not listening): routes, storage, demo data. Use `app.inject` or `listen`. */
export function buildLocalService(opts: LocalServiceOptions = {}): LocalService {
  const db = openDatabase(opts.dbPath ?? ':memory:');
  const now = opts.now ?? Date.now;
  const chatbots = new ChatbotsRepo(db);
  const listings = new ListingsRepo(db);
  const chatbotId = opts.chatbotId ?? 'demo';
  const { credentials, generated } = resolveCredentials(db, {
    secretKey: opts.secretKey,
    sessionKey: opts.sessionKey,
    apiKey: opts.apiKey,
  });
  ensureDemoChatbot(chatbots, listings, chatbotId);
  const answerer: Answerer = opts.llm
    ? new LlmAnswerer(opts.llm)
    : new BuiltinAnswerer({ fragmentDelayMs: opts.fragmentDelayMs });
  const ctx: ServiceContext = {
    db,
    chatbots,
    listings,
    chat: new ChatRepo(db, now),
    uploads: new UploadsRepo(db),
    credentials,
    answerer,
    framing: opts.streamFraming ?? 'sse',
    now,
  };

  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    return503OnClosing: true,
  });
  app.addHook('onClose', async () => {
    db.close();
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof Failure) return sendFailure(req, reply, err.code, err.message, err.httpStatus);
    const f = failureOfFastifyError(err);
    if (f.status >= 500) req.log.error({ err }, 'unexpected error');
    return sendFailure(req, reply, f.code, f.message, f.status);
  });
  app.setNotFoundHandler((req, reply) =>
    sendFailure(req, reply, SERVICE_CODES.notFound, `No operation ${req.method} ${req.url.split('?')[0]}`, 404),
  );

  // The API: any content type is read as JSON (the interface's samples omit Content-Type).
  void app.register(async (api) => {
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text) as unknown);
      } catch (e) {
        done(
          new Failure(SERVICE_CODES.badRequest, `The request body is not valid JSON: ${(e as Error).message}`, 400),
          undefined,
        );
      }
    });
    registerChatRoutes(api, ctx);
    registerV1Routes(api, ctx);
  });
  void app.register(uploadRoutes, { ctx });

  return { app, credentials, generated, chatbotId, context: ctx };
}

/** Starts the service on a real port; the handle says where and with which keys. */
export async function startLocalService(opts: LocalServiceOptions = {}): Promise<LocalServiceHandle> {
  const svc = buildLocalService(opts);
  const host = opts.host ?? '127.0.0.1';
  await svc.app.listen({ port: opts.port ?? 0, host });
  const addr = svc.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? 0);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    credentials: svc.credentials,
    chatbotId: svc.chatbotId,
    close: () => svc.app.close(),
  };
}
