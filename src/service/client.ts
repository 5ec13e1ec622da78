/**
 * The chatbot service client: every operation of both interface families, plus GetSession,
 * ModelList and upload. Requests are validated before sending; answers come back decoded
 * (camelCase) or as typed errors (errors.ts). Nothing outside src/service sees axios, envelopes,
 * header names or wire casing. The /v1 family lives under `client.v1` (v1-client.ts).
 */
import type { AnswerEvent } from './answer-events';
import { ServiceError } from './errors';
import { errorFromCode, isRecord, lowerKeys } from './failures';
import { decode, HttpCore, validate, type RetryPolicy, type RetrySettings } from './http';
import { streamFrom, type StreamOptions } from './stream';

export type { StreamOptions } from './stream';
import { V1Client } from './v1-client';
import { envelopeHeadSchema } from './schemas/envelope';
import {
  clientAskRequestSchema,
  getSessionDataSchema,
  getSessionRequestSchema,
  modelListDataSchema,
  preUploadDataSchema,
  preUploadRequestSchema,
  uploadSizeProblem,
  type ChatAskType,
} from './schemas/chat';
import { chatbotSettingsSchema, type ChatbotSettings } from './schemas/settings';
import {
  listingCreateDataSchema,
  listingCreateSchema,
  listingDeleteDataSchema,
  listingDeleteRequestSchema,
  listingListDataSchema,
  listingListRequestSchema,
  listingUpdateDataSchema,
  listingUpdateSchema,
  type KeyType,
  type Listing,
  type ListingInput,
  type ListingUpdateInput,
  type SaleType,
} from './schemas/listings';
import { RequestValidationError } from './errors';
import { z } from 'zod';

export type { ChatbotSettings } from './schemas/settings';
export type { Listing, ListingInput, ListingUpdateInput, KeyType, SaleType } from './schemas/listings';
export type { ChatAskType } from './schemas/chat';
export type { AnswerEvent } from './answer-events';

/** First-family operations whose paths can be overridden. */
export interface FirstFamilyPaths {
  getSession: string;
  clientAsk: string;
  edit: string;
  modelList: string;
  preUpload: string;
  realEstateCreate: string;
  realEstateUpdate: string;
  realEstateList: string;
  realEstateDelete: string;
}

export const DEFAULT_PATHS: Readonly<FirstFamilyPaths> = {
  getSession: '/chat/Chatbot/GetSession',
  clientAsk: '/chat/Chat/ClientAsk',
  edit: '/chat/Chatbot/Edit',
  modelList: '/chat/Chatbot/ModelList',
  preUpload: '/chat/User/GetPreUploadUrl',
  realEstateCreate: '/chat/Chatbot/RealEstateCreate',
  realEstateUpdate: '/chat/Chatbot/RealEstateUpdate',
  realEstateList: '/chat/Chatbot/RealEstateList',
  realEstateDelete: '/chat/Chatbot/RealEstateDelete',
};

export interface ChatbotClientOptions {
  /** Base URL of the first family (paths /chat/...). */
  baseUrl: string;
  /** Base URL of the second family; /v1/... is appended. Default: baseUrl. */
  v1BaseUrl?: string;
  /** `Authorization: <secretKey>` (raw, no Bearer) on the first family. */
  secretKey?: string;
  /** `chatrobot-sessionkey` on RealEstateList, and also on Create/Update/Delete. */
  sessionKey?: string;
  /** `Authorization: Bearer <apiKey>` on /v1. */
  apiKey?: string;
  /** Per call (for streams: until headers arrive). Default 15000. */
  timeoutMs?: number;
  /** Silence allowed between streamed fragments. Default 30000. */
  idleTimeoutMs?: number;
  /** Timeout of the presigned upload PUT. Default 120000. */
  uploadTimeoutMs?: number;
  paths?: Partial<FirstFamilyPaths>;
  /** Retry count (default 3) or {count, baseDelayMs (default 200)}. */
  retries?: number | Partial<RetrySettings>;
}

export interface AskRequest {
  sessionId: number;
  content: string;
  chatAskType?: ChatAskType;
  /** FileStoreIds from upload(); strings of digits are accepted. */
  fileIds?: Array<number | string>;
}

export interface AskAnswer {
  messageId: number;
  content: string;
  totalTokens: number;
  noAnswer: boolean;
}

export interface Model {
  /** What goes into the `Model` setting. */
  key: string;
  name: string;
  enabled: boolean;
}

export interface ListingQuery {
  chatbotId: string;
  city?: string;
  saleType?: SaleType;
  mls?: string;
  page?: number;
  pageSize?: number;
}

export interface ListingPage {
  items: Listing[];
  /** The service's VirtualCount. */
  total: number;
  page: number;
  pageSize: number;
}

type Cred = 'secret' | 'session' | 'both';

const askAnswerSchema = z.unknown().transform((raw, ctx): AskAnswer => {
  if (!isRecord(raw)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Data must be an object' });
    return z.NEVER;
  }
  const o = lowerKeys(raw);
  const content = typeof o.content === 'string' ? o.content : typeof o.answer === 'string' ? o.answer : undefined;
  const id = o.messageid ?? o.answerid;
  const messageId = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : undefined;
  if (content === undefined || messageId === undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Data must carry messageid and content' });
    return z.NEVER;
  }
  const tokens = o.totaltoken;
  return {
    messageId,
    content,
    totalTokens: typeof tokens === 'number' ? tokens : 0,
    noAnswer: o.noanswer === true,
  };
});

const editDataLenient = z.union([z.number(), z.boolean(), z.null()]);

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  flv: 'video/x-flv',
  mpeg: 'video/mpeg',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export class ChatbotClient {
  /** The second family (/v1): chatbots, conversations, messages, analytics, user lists. */
  readonly v1: V1Client;
  private readonly http: HttpCore;
  private readonly baseUrl: string;
  private readonly paths: FirstFamilyPaths;
  private readonly idleTimeoutMs: number;
  private readonly uploadTimeoutMs: number;

  constructor(private readonly opts: ChatbotClientOptions) {
    this.baseUrl = trimSlash(opts.baseUrl);
    this.paths = { ...DEFAULT_PATHS, ...(opts.paths ?? {}) };
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 30000;
    this.uploadTimeoutMs = opts.uploadTimeoutMs ?? 120000;
    const retries = typeof opts.retries === 'number' ? { count: opts.retries } : (opts.retries ?? {});
    this.http = new HttpCore(opts.timeoutMs ?? 15000, {
      count: retries.count ?? 3,
      baseDelayMs: retries.baseDelayMs ?? 200,
    });
    this.v1 = new V1Client(this.http, trimSlash(opts.v1BaseUrl ?? opts.baseUrl), opts.apiKey, this.idleTimeoutMs);
  }

  /** Creates a chat session for the chatbot; the id is ClientAsk's sessionID. */
  async getSession(chatbotId: string): Promise<number> {
    const op = 'getSession';
    const body = validate(op, getSessionRequestSchema, { serialNumber: chatbotId });
    const data = await this.envelope(op, 'getSession', body, 'secret', 'session');
    const parsed = decode(
      op,
      getSessionDataSchema.or(z.object({ SessionID: z.string().regex(/^\d+$/).transform(Number) })),
      data,
    );
    return parsed.SessionID;
  }

  /** A whole (non-streamed) answer. Never retried once sent. */
  async ask(req: AskRequest): Promise<AskAnswer> {
    const op = 'ask';
    const body = this.askBody(op, req, false);
    const data = await this.envelope(op, 'clientAsk', body, 'secret', 'none');
    return decode(op, askAnswerSchema, data);
  }

  /**
   * A streamed answer: `delta` events, then one `final`. Errors: RequestValidationError before
   * sending; ServiceError/RateLimitedError/QuotaExceededError when the service refuses;
   * NetworkError/TimeoutError before the stream starts; InterruptedStreamError (partialText,
   * reason 'ended' | 'idle-timeout' | 'connection-lost' | 'aborted') once it has started.
   */
  askStream(req: AskRequest, opts: StreamOptions = {}): AsyncIterable<AnswerEvent> {
    const op = 'askStream';
    // Validation runs on first iteration, so every failure surfaces in the consumer's for-await.
    return streamFrom(
      this.http,
      () => ({
        operation: op,
        method: 'POST',
        url: this.url('clientAsk'),
        headers: this.headers('secret', true),
        body: this.askBody(op, req, true),
        retry: 'none',
      }),
      opts,
      this.idleTimeoutMs,
    );
  }

  /** Edit: serialNumber plus the fields to change. */
  async editChatbot(settings: ChatbotSettings): Promise<void> {
    const op = 'editChatbot';
    const body = validate(op, chatbotSettingsSchema, settings);
    const data = await this.envelope(op, 'edit', body, 'secret', 'none');
    const result = decode(op, editDataLenient, data);
    if (result === 0 || result === false) {
      throw new ServiceError(op, 'not_applied', 'the chatbot service did not apply the settings change');
    }
  }

  async listModels(): Promise<Model[]> {
    const op = 'listModels';
    const json = await this.http.json({
      operation: op,
      method: 'GET',
      url: this.url('modelList'),
      headers: this.headers('secret', true),
      body: {},
      retry: 'read',
    });
    const data = this.unwrap(op, json);
    return decode(op, modelListDataSchema, data).map((m) => ({ key: m.Key, name: m.Value, enabled: m.Status }));
  }

  async listListings(q: ListingQuery): Promise<ListingPage> {
    const op = 'listListings';
    const body = validate(op, listingListRequestSchema, {
      SerialNumber: q.chatbotId,
      CityName: q.city,
      SaleType: q.saleType,
      MLSNumber: q.mls,
      PageNumber: q.page,
      PageSize: q.pageSize,
    });
    const data = await this.envelope(op, 'realEstateList', body, 'session', 'read');
    const decoded = decode(op, listingListDataSchema, data);
    return { items: decoded.List, total: decoded.VirtualCount, page: q.page ?? 1, pageSize: q.pageSize ?? 20 };
  }

  /** Returns the new listing's identifier (usable as Key with KeyType ListingId). */
  async createListing(input: ListingInput): Promise<string> {
    const op = 'createListing';
    const body = validate(op, listingCreateSchema, input);
    const data = await this.envelope(op, 'realEstateCreate', body, 'both', 'none');
    return decode(op, listingCreateDataSchema, data);
  }

  /** Returns the number of records updated. */
  async updateListing(input: ListingUpdateInput): Promise<number> {
    const op = 'updateListing';
    const body = validate(op, listingUpdateSchema, input);
    const data = await this.envelope(op, 'realEstateUpdate', body, 'both', 'none');
    return decode(op, listingUpdateDataSchema, data);
  }

  /** Returns how many listings were deleted. */
  async deleteListings(chatbotId: string, keys: string[], keyType: KeyType): Promise<number> {
    const op = 'deleteListings';
    const body = validate(op, listingDeleteRequestSchema, { SerialNumber: chatbotId, Keys: keys, KeyType: keyType });
    const data = await this.envelope(op, 'realEstateDelete', body, 'both', 'none');
    return decode(op, listingDeleteDataSchema, data).SuccessCount;
  }

  /** GetPreUploadUrl, then PUT the bytes to the presigned URL; returns FileStoreId (for fileIds). */
  async upload(fileName: string, bytes: Buffer): Promise<number> {
    const op = 'upload';
    const body = validate(op, preUploadRequestSchema, { fileName });
    const tooBig = uploadSizeProblem(fileName, bytes.length);
    if (tooBig) throw new RequestValidationError(op, [{ field: 'bytes', message: tooBig }]);
    const data = await this.envelope(op, 'preUpload', body, 'secret', 'none');
    const pre = decode(op, preUploadDataSchema, data);
    const ext = /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
    await this.http.putBytes({
      operation: op,
      url: pre.PreUploadUrl,
      // The URL is signed: no credentials go with it.
      headers: { 'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream' },
      bytes,
      retry: 'read',
      timeoutMs: this.uploadTimeoutMs,
    });
    return Number(pre.FileStoreId);
  }

  // ---- internals -------------------------------------------------------------------------------

  private askBody(op: string, req: AskRequest, stream: boolean) {
    return validate(op, clientAskRequestSchema, {
      sessionID: req.sessionId,
      content: req.content,
      ...(req.chatAskType !== undefined ? { chatAskType: req.chatAskType } : {}),
      stream,
      ...(req.fileIds !== undefined ? { fileIds: req.fileIds } : {}),
    });
  }

  private url(path: keyof FirstFamilyPaths): string {
    const p = this.paths[path];
    return /^https?:\/\//i.test(p) ? p : `${this.baseUrl}${p.startsWith('/') ? '' : '/'}${p}`;
  }

  private headers(cred: Cred, json: boolean): Record<string, string> {
    const h: Record<string, string> = json ? { 'Content-Type': 'application/json' } : {};
    if ((cred === 'secret' || cred === 'both') && this.opts.secretKey) h.Authorization = this.opts.secretKey;
    if ((cred === 'session' || cred === 'both') && this.opts.sessionKey)
      h['chatrobot-sessionkey'] = this.opts.sessionKey;
    return h;
  }

  private async envelope(
    op: string,
    path: keyof FirstFamilyPaths,
    body: unknown,
    cred: Cred,
    retry: RetryPolicy,
  ): Promise<unknown> {
    const json = await this.http.json({
      operation: op,
      method: 'POST',
      url: this.url(path),
      headers: this.headers(cred, true),
      body,
      retry,
    });
    return this.unwrap(op, json);
  }

  /** Envelope -> Data, or the typed error. Callers never see Success. */
  private unwrap(op: string, json: unknown): unknown {
    const head = envelopeHeadSchema.safeParse(json);
    if (!head.success) {
      throw new ServiceError(
        op,
        'bad_response',
        `the chatbot service answered ${op} with something that is not an envelope`,
      );
    }
    if (!head.data.Success) throw errorFromCode(op, head.data.Code, head.data.Message);
    return head.data.Data;
  }
}
