import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  SERVICE_CODES,
  v1AnalyticsQuerySchema,
  type V1AnalyticsWire,
  type V1ChatbotWire,
  v1ChatbotSettingsSchema,
  type V1ConversationWire,
  v1CreateChatbotBodySchema,
  v1GetConversationQuerySchema,
  v1ListChatbotsQuerySchema,
  type V1MessageWire,
  v1SendMessageBodySchema,
  type V1SendMessageWire,
  v1StartConversationBodySchema,
  v1UpdateChatbotBodySchema,
  v1UserConversationsQuerySchema,
} from '../../service/schemas';
import { Ask } from '../chat/ask';
import type { MessageRecord, SessionRecord } from '../chat/chat-repo';
import type { ChatbotRecord } from '../chatbots/chatbots-repo';
import type { ChatbotSettings } from '../chatbots/settings';
import { checkV1, mayTouch, type V1Principal } from '../server/auth';
import type { ServiceContext } from '../server/context';
import { badRequest, Failure, notFound, parseWith } from '../server/failure';
import { openObjectStream } from '../server/stream';

const iso = (ms: number): string => new Date(ms).toISOString();
const forbidden = (m: string): Failure => new Failure(SERVICE_CODES.forbidden, m, 403);
const DAY_MS = 24 * 60 * 60 * 1000;

function chatbotJson(c: ChatbotRecord, withKey = false): V1ChatbotWire {
  return {
    id: c.id,
    name: c.settings.Name,
    description: c.description,
    status: c.status,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    settings: {
      tone: 'friendly',
      max_tokens: 1024,
      temperature: c.settings.Temperature,
      ...c.v1Settings,
      language: c.settings.AIResponseLanguage,
    },
    ...(withKey && c.apiKey ? { api_key: c.apiKey } : {}),
  };
}

function messageJson(m: MessageRecord): V1MessageWire {
  return { id: String(m.id), role: m.role, content: m.content, timestamp: iso(m.createdAt) };
}

function conversationJson(s: SessionRecord): V1ConversationWire {
  return {
    id: String(s.id),
    chatbot_id: s.chatbotId,
    user_id: s.userId,
    status: s.status,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
    metadata: s.metadata,
  };
}

/** `settings` of a /v1 body: known members type-checked; `language` also drives AIResponseLanguage. */
function settingsChange(raw: Record<string, unknown> | undefined): {
  v1Settings?: Record<string, unknown>;
  settings?: Partial<ChatbotSettings>;
} {
  if (raw === undefined) return {};
  const v1Settings = parseWith(v1ChatbotSettingsSchema, raw, 'settings') as Record<string, unknown>;
  const language = v1Settings.language;
  return {
    v1Settings,
    settings: typeof language === 'string' && language.trim() !== '' ? { AIResponseLanguage: language } : undefined,
  };
}

/** Date-only end dates mean the whole day. */
function parseEnd(s: string): number {
  const t = Date.parse(s);
  return /^\d{4}-\d{2}-\d{2}$/.test(s.trim()) ? t + DAY_MS - 1 : t;
}

/** The conversation `id` names, if this key may touch it. */
function conversationFor(ctx: ServiceContext, p: V1Principal, id: string): SessionRecord {
  const s = /^\d+$/.test(id) ? ctx.chat.getSession(Number(id)) : undefined;
  if (!s) throw notFound(`Unknown conversation '${id}'`);
  if (!mayTouch(p, s.chatbotId)) throw forbidden(`This API key may not access conversation '${id}'`);
  return s;
}

/** The chatbot `id` (given as `field`) names, if this key may touch it. */
function chatbotFor(ctx: ServiceContext, p: V1Principal, id: string, field: string): ChatbotRecord {
  const c = ctx.chatbots.get(id);
  if (!c) throw notFound(`Unknown chatbot '${id}' (${field})`);
  if (!mayTouch(p, id))
    throw forbidden(`This API key may only access chatbot '${p.kind === 'chatbot' ? p.chatbot.id : ''}', not '${id}'`);
  return c;
}

/** The second family: REST, bearer keys, {success, data, meta?}. */
export function registerV1Routes(app: FastifyInstance, ctx: ServiceContext): void {
  registerChatbotRoutes(app, ctx);
  registerConversationRoutes(app, ctx);
  registerAnalyticsRoutes(app, ctx);
}

function registerChatbotRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/v1/chatbots', (req) => {
    const p = checkV1(ctx, req);
    const q = parseWith(v1ListChatbotsQuerySchema, req.query, 'query');
    const page = q.page ?? 1;
    const limit = q.limit ?? 20;
    const { items, total } = ctx.chatbots.list({
      status: q.status,
      page,
      limit,
      onlyId: p.kind === 'chatbot' ? p.chatbot.id : undefined,
    });
    return {
      success: true,
      data: items.map((c) => chatbotJson(c)),
      meta: { page, limit, total, pages: Math.ceil(total / limit) },
    };
  });

  app.post('/v1/chatbots', (req, reply) => {
    const p = checkV1(ctx, req);
    if (p.kind !== 'account') throw forbidden('Only the account API key may create chatbots');
    const body = parseWith(v1CreateChatbotBodySchema, req.body);
    const change = settingsChange(body.settings);
    const c = ctx.chatbots.create({
      name: body.name,
      description: body.description,
      status: 'draft',
      settings: change.settings,
      v1Settings: change.v1Settings,
      withApiKey: true,
    });
    return reply.code(201).send({ success: true, data: chatbotJson(c, true) });
  });

  app.patch<{ Params: { id: string } }>('/v1/chatbots/:id', (req) => {
    const p = checkV1(ctx, req);
    const body = parseWith(v1UpdateChatbotBodySchema, req.body);
    chatbotFor(ctx, p, req.params.id, 'id');
    const change = settingsChange(body.settings);
    const c = ctx.chatbots.update(req.params.id, {
      status: body.status,
      settings: { ...change.settings, ...(body.name !== undefined ? { Name: body.name } : {}) },
      v1Settings: change.v1Settings,
    });
    if (!c) throw notFound(`Unknown chatbot '${req.params.id}' (id)`);
    return { success: true, data: chatbotJson(c) };
  });
}

function registerConversationRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post('/v1/conversations', (req, reply) => {
    const p = checkV1(ctx, req);
    const body = parseWith(v1StartConversationBodySchema, req.body);
    chatbotFor(ctx, p, body.chatbot_id, 'chatbot_id');
    const s = ctx.chat.createSession(body.chatbot_id, body.user_id, body.metadata);
    return reply.code(201).send({ success: true, data: { ...conversationJson(s), session_token: s.sessionToken } });
  });

  app.get<{ Params: { id: string } }>('/v1/conversations/:id', (req) => {
    const p = checkV1(ctx, req);
    const q = parseWith(v1GetConversationQuerySchema, req.query, 'query');
    const s = conversationFor(ctx, p, req.params.id);
    const data: V1ConversationWire = conversationJson(s);
    if (q.include_messages !== false) data.messages = ctx.chat.messages(s.id).map(messageJson);
    return { success: true, data };
  });

  app.post<{ Params: { id: string } }>('/v1/conversations/:id/messages', (req, reply: FastifyReply) =>
    sendMessage(ctx, req, reply),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/users/:id/conversations',
    (req: FastifyRequest<{ Params: { id: string } }>) => {
      const p = checkV1(ctx, req);
      const q = parseWith(v1UserConversationsQuerySchema, req.query, 'query');
      const limit = q.limit ?? 20;
      if (limit > 100) throw badRequest('limit must be from 1 to 100');
      const { items, total } = ctx.chat.conversationsOfUser(req.params.id, {
        status: q.status,
        limit,
        chatbotId: p.kind === 'chatbot' ? p.chatbot.id : undefined,
      });
      return {
        success: true,
        data: items.map((s): V1ConversationWire => ({ ...conversationJson(s), message_count: s.messageCount })),
        meta: { total, limit },
      };
    },
  );
}

/** POST /v1/conversations/:id/messages: the answer in one reply, or streamed as Server-Sent Events. */
async function sendMessage(
  ctx: ServiceContext,
  req: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const p = checkV1(ctx, req);
  const body = parseWith(v1SendMessageBodySchema, req.body);
  const s = conversationFor(ctx, p, req.params.id);
  const ask = Ask.begin(ctx, s, { content: body.content, mode: 'Text', fileIds: [] });
  const result = (r: Awaited<ReturnType<Ask['run']>>): V1SendMessageWire => ({
    message_id: String(r.question.id),
    conversation_id: String(s.id),
    response: { id: String(r.answer.id), content: r.text, timestamp: iso(r.answer.createdAt) },
  });
  if (!body.stream) return reply.code(201).send({ success: true, data: result(await ask.run(() => undefined)) });

  let stream: ReturnType<typeof openObjectStream> | undefined;
  const abort = new AbortController();
  try {
    const r = await ask.run((content) => {
      if (!stream) {
        // /v1 streams are Server-Sent Events whatever the first family's framing.
        stream = openObjectStream(reply, 'sse');
        stream.signal.addEventListener('abort', () => abort.abort(), { once: true });
      }
      stream.send({ content });
    }, abort.signal);
    stream ??= openObjectStream(reply, 'sse');
    stream.send(result(r));
    stream.end();
  } catch (err) {
    if (!stream)
      throw err instanceof Failure
        ? err
        : new Failure(SERVICE_CODES.internal, `The chatbot could not answer: ${(err as Error).message}`, 502);
    stream.end();
  }
  return reply;
}

function registerAnalyticsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/v1/analytics/overview', (req) => {
    const p = checkV1(ctx, req);
    const q = parseWith(v1AnalyticsQuerySchema, req.query, 'query');
    const end = q.end_date !== undefined ? parseEnd(q.end_date) : ctx.now();
    const start = q.start_date !== undefined ? Date.parse(q.start_date) : end - 30 * DAY_MS;
    if (start > end) throw badRequest('start_date must not be after end_date');
    let chatbotId = q.chatbot_id;
    if (chatbotId !== undefined) chatbotFor(ctx, p, chatbotId, 'chatbot_id');
    else if (p.kind === 'chatbot') chatbotId = p.chatbot.id;
    const data: V1AnalyticsWire = {
      period: { start: iso(start), end: iso(end) },
      metrics: ctx.chat.analytics(start, end, chatbotId),
    };
    return { success: true, data };
  });
}
