/** The second family (/v1), exposed as `ChatbotClient.v1`. Bearer API key; camelCase results. */
import type { AnswerEvent } from './answer-events';
import { ServiceError } from './errors';
import { errorFromCode, isRecord } from './failures';
import { decode, type HttpCore, type RetryPolicy, validate } from './http';
import { streamFrom, type StreamOptions } from './stream';
import {
  v1AnalyticsQuerySchema,
  v1AnalyticsSchema,
  v1ChatbotSchema,
  v1ConversationSchema,
  v1CreateChatbotBodySchema,
  v1GetConversationQuerySchema,
  v1IdSchema,
  v1ListChatbotsQuerySchema,
  v1PageMetaSchema,
  v1SendMessageBodySchema,
  v1SendMessageSchema,
  v1StartConversationBodySchema,
  v1UpdateChatbotBodySchema,
  v1UserConversationsQuerySchema,
  v1UserListMetaSchema,
  type V1AnalyticsOverview,
  type V1Chatbot,
  type V1ChatbotStatus,
  type V1Conversation,
  type V1ConversationStatus,
  type V1PageMeta,
  type V1SendMessageResult,
  type V1UserListMeta,
} from './schemas/v1';
import { z as zod } from 'zod';

export type {
  V1AnalyticsOverview,
  V1Chatbot,
  V1Conversation,
  V1PageMeta,
  V1SendMessageResult,
  V1UserListMeta,
} from './schemas/v1';

export class V1Client {
  constructor(
    private readonly http: HttpCore,
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly idleTimeoutMs: number,
  ) {}

  async listChatbots(
    q: { page?: number; limit?: number; status?: V1ChatbotStatus } = {},
  ): Promise<{ items: V1Chatbot[]; meta: V1PageMeta }> {
    const op = 'v1.listChatbots';
    const params = validate(op, v1ListChatbotsQuerySchema, dropUndefined(q));
    const body = await this.call(op, 'GET', '/v1/chatbots', { params, retry: 'read' });
    const items = decode(op, zod.array(v1ChatbotSchema), body.data);
    const page = params.page ?? 1;
    const limit = params.limit ?? 20;
    const meta =
      body.meta === undefined
        ? { page, limit, total: items.length, pages: 1 }
        : decode(op, v1PageMetaSchema, body.meta);
    return { items, meta };
  }

  async createChatbot(input: {
    name: string;
    description?: string;
    settings?: Record<string, unknown>;
  }): Promise<V1Chatbot> {
    const op = 'v1.createChatbot';
    const json = validate(op, v1CreateChatbotBodySchema, dropUndefined(input));
    const body = await this.call(op, 'POST', '/v1/chatbots', { json, retry: 'none' });
    return decode(op, v1ChatbotSchema, body.data);
  }

  async updateChatbot(id: string, input: { name?: string; settings?: Record<string, unknown> }): Promise<V1Chatbot> {
    const op = 'v1.updateChatbot';
    const cid = validate(op, v1IdSchema('id'), id);
    const json = validate(op, v1UpdateChatbotBodySchema, dropUndefined(input));
    const body = await this.call(op, 'PATCH', `/v1/chatbots/${encodeURIComponent(cid)}`, { json, retry: 'none' });
    return decode(op, v1ChatbotSchema, body.data);
  }

  async startConversation(input: {
    chatbotId: string;
    userId?: string;
    metadata?: Record<string, unknown>;
  }): Promise<V1Conversation> {
    const op = 'v1.startConversation';
    const json = validate(
      op,
      v1StartConversationBodySchema,
      dropUndefined({ chatbot_id: input.chatbotId, user_id: input.userId, metadata: input.metadata }),
    );
    const body = await this.call(op, 'POST', '/v1/conversations', { json, retry: 'none' });
    return decode(op, v1ConversationSchema, body.data);
  }

  async getConversation(id: string, q: { includeMessages?: boolean } = {}): Promise<V1Conversation> {
    const op = 'v1.getConversation';
    const cid = validate(op, v1IdSchema('id'), id);
    const params = validate(op, v1GetConversationQuerySchema, dropUndefined({ include_messages: q.includeMessages }));
    const body = await this.call(op, 'GET', `/v1/conversations/${encodeURIComponent(cid)}`, { params, retry: 'read' });
    return decode(op, v1ConversationSchema, body.data);
  }

  /** Not retried once sent: the service may have answered it. */
  async sendMessage(conversationId: string, content: string): Promise<V1SendMessageResult> {
    const op = 'v1.sendMessage';
    const cid = validate(op, v1IdSchema('conversationId'), conversationId);
    const json = validate(op, v1SendMessageBodySchema, { content });
    const body = await this.call(op, 'POST', `/v1/conversations/${encodeURIComponent(cid)}/messages`, {
      json,
      retry: 'none',
    });
    return decode(op, v1SendMessageSchema, body.data);
  }

  /** Streamed: SSE `data: {"content"}` deltas then the {message_id, conversation_id, response} final. */
  sendMessageStream(conversationId: string, content: string, opts: StreamOptions = {}): AsyncIterable<AnswerEvent> {
    const op = 'v1.sendMessageStream';
    return streamFrom(
      this.http,
      () => {
        const cid = validate(op, v1IdSchema('conversationId'), conversationId);
        const json = validate(op, v1SendMessageBodySchema, { content, stream: true });
        return {
          operation: op,
          method: 'POST',
          url: `${this.baseUrl}/v1/conversations/${encodeURIComponent(cid)}/messages`,
          headers: this.headers(true),
          body: json,
          retry: 'none',
        };
      },
      opts,
      this.idleTimeoutMs,
    );
  }

  async analyticsOverview(
    q: { startDate?: string; endDate?: string; chatbotId?: string } = {},
  ): Promise<V1AnalyticsOverview> {
    const op = 'v1.analyticsOverview';
    const params = validate(
      op,
      v1AnalyticsQuerySchema,
      dropUndefined({ start_date: q.startDate, end_date: q.endDate, chatbot_id: q.chatbotId }),
    );
    const body = await this.call(op, 'GET', '/v1/analytics/overview', { params, retry: 'read' });
    return decode(op, v1AnalyticsSchema, body.data);
  }

  async userConversations(
    userId: string,
    q: { limit?: number; status?: V1ConversationStatus } = {},
  ): Promise<{ items: V1Conversation[]; meta: V1UserListMeta }> {
    const op = 'v1.userConversations';
    const uid = validate(op, v1IdSchema('userId'), userId);
    const params = validate(op, v1UserConversationsQuerySchema, dropUndefined(q));
    const body = await this.call(op, 'GET', `/v1/users/${encodeURIComponent(uid)}/conversations`, {
      params,
      retry: 'read',
    });
    const items = decode(op, zod.array(v1ConversationSchema), body.data);
    const meta =
      body.meta === undefined
        ? { total: items.length, limit: params.limit ?? 20 }
        : decode(op, v1UserListMetaSchema, body.meta);
    return { items, meta };
  }

  private headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = json ? { 'Content-Type': 'application/json' } : {};
    if (this.apiKey) h.Authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  /** One /v1 call -> {data, meta}; failures -> typed errors. */
  private async call(
    op: string,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    o: { json?: unknown; params?: Record<string, string | number | boolean | undefined>; retry: RetryPolicy },
  ): Promise<{ data: unknown; meta: unknown }> {
    const res = await this.http.json({
      operation: op,
      method,
      url: `${this.baseUrl}${path}`,
      headers: this.headers(o.json !== undefined),
      body: o.json,
      params: o.params,
      retry: o.retry,
    });
    if (!isRecord(res) || typeof res.success !== 'boolean') {
      throw new ServiceError(
        op,
        'bad_response',
        `the chatbot service answered ${op} with something that is not a /v1 response`,
      );
    }
    if (!res.success) {
      const err = isRecord(res.error) ? res.error : {};
      throw errorFromCode(
        op,
        typeof err.code === 'number' || typeof err.code === 'string' ? err.code : 'error',
        typeof err.message === 'string' ? err.message : undefined,
      );
    }
    return { data: res.data, meta: res.meta };
  }
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
