/** Second family (/v1): resources, list metas, request bodies and query strings (section 4.7). */
import { z } from 'zod';
import { bool, int, nonEmptyStr, oneOf, str } from './fields';

export const V1_CHATBOT_STATUSES = ['active', 'inactive', 'draft'] as const;
export const V1_CONVERSATION_STATUSES = ['active', 'completed'] as const;
export type V1ChatbotStatus = (typeof V1_CHATBOT_STATUSES)[number];
export type V1ConversationStatus = (typeof V1_CONVERSATION_STATUSES)[number];

const isoDate = (name: string) =>
  str(name).refine((s) => !Number.isNaN(Date.parse(s)), {
    message: `${name} must be an ISO 8601 date like 2024-05-01 or 2024-05-01T00:00:00Z`,
  });

/** Query strings arrive as text on the server: numbers and booleans are coerced. */
const qInt = (name: string) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), int(name));
const qBool = (name: string) =>
  z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v), bool(name));

// ---- wire resources ------------------------------------------------------------------------------

export const v1ChatbotSettingsSchema = z
  .object({
    language: z.string().optional(),
    tone: z.string().optional(),
    max_tokens: z.number().int().optional(),
    temperature: z.number().optional(),
  })
  .passthrough();

export const v1ChatbotWireSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  status: z.string(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  settings: v1ChatbotSettingsSchema.optional(),
  api_key: z.string().optional(),
});
export type V1ChatbotWire = z.input<typeof v1ChatbotWireSchema>;

export const v1MessageWireSchema = z.object({
  id: z.string(),
  role: z.string(),
  content: z.string(),
  timestamp: z.string(),
});
export type V1MessageWire = z.input<typeof v1MessageWireSchema>;

export const v1ConversationWireSchema = z.object({
  id: z.string(),
  chatbot_id: z.string(),
  status: z.string(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  session_token: z.string().optional(),
  message_count: z.number().int().optional(),
  messages: z.array(v1MessageWireSchema).optional(),
  user_id: z.string().nullish(),
  metadata: z.record(z.unknown()).nullish(),
});
export type V1ConversationWire = z.input<typeof v1ConversationWireSchema>;

export const v1SendMessageWireSchema = z.object({
  message_id: z.string(),
  conversation_id: z.string(),
  response: z.object({ id: z.string(), content: z.string(), timestamp: z.string() }),
});
export type V1SendMessageWire = z.input<typeof v1SendMessageWireSchema>;

export const v1AnalyticsWireSchema = z.object({
  period: z.object({ start: z.string(), end: z.string() }),
  metrics: z.object({
    total_conversations: z.number().int(),
    total_messages: z.number().int(),
    unique_users: z.number().int(),
    avg_conversation_length: z.number(),
    resolution_rate: z.number(),
    avg_response_time: z.number(),
  }),
});
export type V1AnalyticsWire = z.input<typeof v1AnalyticsWireSchema>;

export const v1PageMetaSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
});
export type V1PageMeta = z.infer<typeof v1PageMetaSchema>;

export const v1UserListMetaSchema = z.object({ total: z.number().int(), limit: z.number().int() });
export type V1UserListMeta = z.infer<typeof v1UserListMetaSchema>;

// ---- decoded (camelCase) ---------------------------------------------------------------------------

export const v1ChatbotSchema = v1ChatbotWireSchema.transform((c) => ({
  id: c.id,
  name: c.name,
  description: c.description ?? undefined,
  status: c.status,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
  settings: c.settings,
  apiKey: c.api_key,
}));
export type V1Chatbot = z.output<typeof v1ChatbotSchema>;

export const v1ConversationSchema = v1ConversationWireSchema.transform((c) => ({
  id: c.id,
  chatbotId: c.chatbot_id,
  status: c.status,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
  sessionToken: c.session_token,
  messageCount: c.message_count,
  messages: c.messages,
  userId: c.user_id ?? undefined,
  metadata: c.metadata ?? undefined,
}));
export type V1Conversation = z.output<typeof v1ConversationSchema>;

export const v1SendMessageSchema = v1SendMessageWireSchema.transform((m) => ({
  messageId: m.message_id,
  conversationId: m.conversation_id,
  response: m.response,
}));
export type V1SendMessageResult = z.output<typeof v1SendMessageSchema>;

export const v1AnalyticsSchema = v1AnalyticsWireSchema.transform((a) => ({
  period: a.period,
  metrics: {
    totalConversations: a.metrics.total_conversations,
    totalMessages: a.metrics.total_messages,
    uniqueUsers: a.metrics.unique_users,
    avgConversationLength: a.metrics.avg_conversation_length,
    resolutionRate: a.metrics.resolution_rate,
    avgResponseTime: a.metrics.avg_response_time,
  },
}));
export type V1AnalyticsOverview = z.output<typeof v1AnalyticsSchema>;

// ---- requests (wire) ---------------------------------------------------------------------------------

/** GET /v1/chatbots query. */
export const v1ListChatbotsQuerySchema = z
  .object({
    page: qInt('page').pipe(z.number().min(1, 'page must be 1 or more')).optional(),
    limit: qInt('limit')
      .pipe(z.number().min(1, 'limit must be from 1 to 100').max(100, 'limit must be from 1 to 100'))
      .optional(),
    status: oneOf('status', V1_CHATBOT_STATUSES).optional(),
  })
  .strict();

/** POST /v1/chatbots body. */
export const v1CreateChatbotBodySchema = z
  .object({
    name: nonEmptyStr('name'),
    description: str('description').optional(),
    settings: z.record(z.unknown(), { invalid_type_error: 'settings must be an object' }).optional(),
  })
  .strict();

/** PATCH /v1/chatbots/{id} body. */
export const v1UpdateChatbotBodySchema = z
  .object({
    name: nonEmptyStr('name').optional(),
    settings: z.record(z.unknown(), { invalid_type_error: 'settings must be an object' }).optional(),
    status: oneOf('status', V1_CHATBOT_STATUSES).optional(),
  })
  .strict();

/** POST /v1/conversations body. */
export const v1StartConversationBodySchema = z
  .object({
    chatbot_id: nonEmptyStr('chatbot_id'),
    user_id: nonEmptyStr('user_id').optional(),
    metadata: z.record(z.unknown(), { invalid_type_error: 'metadata must be an object' }).optional(),
  })
  .strict();

/** GET /v1/conversations/{id} query. */
export const v1GetConversationQuerySchema = z
  .object({ include_messages: qBool('include_messages').optional() })
  .strict();

/** POST /v1/conversations/{id}/messages body. */
export const v1SendMessageBodySchema = z
  .object({ content: nonEmptyStr('content'), stream: bool('stream').optional() })
  .strict();

/** GET /v1/analytics/overview query. */
export const v1AnalyticsQuerySchema = z
  .object({
    start_date: isoDate('start_date').optional(),
    end_date: isoDate('end_date').optional(),
    chatbot_id: nonEmptyStr('chatbot_id').optional(),
  })
  .strict();

/** GET /v1/users/{id}/conversations query. */
export const v1UserConversationsQuerySchema = z
  .object({
    limit: qInt('limit').pipe(z.number().min(1, 'limit must be 1 or more')).optional(),
    status: oneOf('status', V1_CONVERSATION_STATUSES).optional(),
  })
  .strict();

/** Path ids: non-empty, no slash (they are put into the path). */
export const v1IdSchema = (name: string) =>
  nonEmptyStr(name).refine((s) => !s.includes('/'), { message: `${name} must not contain /` });
