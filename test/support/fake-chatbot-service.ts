/**
 * A faithful in-memory stand-in for the chatbot service (both families, GetSession, ModelList,
 * upload), built on FakeChatbotServer, so the client contract tests have a target before the local
 * service exists. Validates requests with the shared schemas, checks credentials per operation.
 */
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { errorEnvelope, okEnvelope } from '../../src/service/schemas/envelope';
import { describeIssues, fieldIssues } from '../../src/service/schemas/fields';
import { chatbotSettingsSchema } from '../../src/service/schemas/settings';
import {
  clientAskRequestSchema,
  getSessionRequestSchema,
  preUploadRequestSchema,
} from '../../src/service/schemas/chat';
import {
  listingCreateSchema,
  listingDeleteRequestSchema,
  listingListRequestSchema,
  listingUpdateSchema,
  type ListingInput,
  type ListingWireItem,
} from '../../src/service/schemas/listings';
import {
  v1CreateChatbotBodySchema,
  v1SendMessageBodySchema,
  v1StartConversationBodySchema,
  v1UpdateChatbotBodySchema,
  type V1ChatbotWire,
  type V1ConversationWire,
  type V1MessageWire,
} from '../../src/service/schemas/v1';
import { FakeChatbotServer, openStream, sendJson, type RecordedRequest } from './fake-chatbot-server';

export interface FakeServiceCredentials {
  secretKey: string;
  sessionKey: string;
  apiKey: string;
}

export const FAKE_CREDENTIALS: FakeServiceCredentials = {
  secretKey: 'sk-fake',
  sessionKey: 'ss-fake',
  apiKey: 'ak-fake',
};

/** The deterministic answer to a question (multi-byte characters included on purpose). */
export function fakeAnswer(question: string): string {
  return `Vous avez demandé « ${question} ». Voici la réponse 🏠 — merci !`;
}

function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

export async function startFakeChatbotService(
  creds: FakeServiceCredentials = FAKE_CREDENTIALS,
  chatbotId = 'demo',
): Promise<FakeChatbotServer> {
  const server = await FakeChatbotServer.start();
  const chatbots = new Set([chatbotId]);
  let nextId = 1000;
  /** Session id -> its chatbot. */
  const sessions = new Map<number, string>();
  /** The AnswerSuffix each chatbot was last edited to (appended to its answers, as the interface says). */
  const suffixes = new Map<string, string>();
  const listings = new Map<number, { serial: string; input: ListingInput }>();
  const uploads = new Map<number, Buffer | undefined>();
  const v1bots = new Map<string, V1ChatbotWire>();
  const v1convs = new Map<string, V1ConversationWire & { messages: V1MessageWire[] }>();
  const now = () => new Date().toISOString();

  const envelopeFail = (res: ServerResponse, code: number, message: string) =>
    sendJson(res, code, errorEnvelope(code, message));
  const checkSecret = (req: RecordedRequest, res: ServerResponse) => {
    if (req.headers.authorization === creds.secretKey) return true;
    envelopeFail(res, 401, 'Authorization: missing or wrong secret key');
    return false;
  };
  const checkSession = (req: RecordedRequest, res: ServerResponse) => {
    if (req.headers['chatrobot-sessionkey'] === creds.sessionKey) return true;
    envelopeFail(res, 401, 'chatrobot-sessionkey: missing or wrong session key');
    return false;
  };
  const checkEither = (req: RecordedRequest, res: ServerResponse) => {
    if (req.headers.authorization === creds.secretKey || req.headers['chatrobot-sessionkey'] === creds.sessionKey)
      return true;
    envelopeFail(res, 401, 'missing or wrong credentials');
    return false;
  };
  function parse<S extends z.ZodTypeAny>(
    schema: S,
    req: RecordedRequest,
    res: ServerResponse,
  ): z.output<S> | undefined {
    const r = schema.safeParse(req.json);
    if (r.success) return r.data as z.output<S>;
    envelopeFail(res, 400, describeIssues(fieldIssues(r.error)));
    return undefined;
  }
  const knownBot = (serial: string, res: ServerResponse) => {
    if (chatbots.has(serial)) return true;
    envelopeFail(res, 404, `unknown chatbot ${serial}`);
    return false;
  };

  server.on('POST', '/chat/Chatbot/GetSession', (req, res) => {
    if (!checkSecret(req, res)) return;
    const body = parse(getSessionRequestSchema, req, res);
    if (!body || !knownBot(body.serialNumber, res)) return;
    const id = nextId++;
    sessions.set(id, body.serialNumber);
    sendJson(res, 200, okEnvelope({ SessionID: id }));
  });

  server.on('POST', '/chat/Chat/ClientAsk', async (req, res) => {
    if (!checkSecret(req, res)) return;
    const body = parse(clientAskRequestSchema, req, res);
    if (!body) return;
    if (!sessions.has(body.sessionID)) return envelopeFail(res, 404, `unknown sessionID ${body.sessionID}`);
    const suffix = suffixes.get(sessions.get(body.sessionID) ?? '');
    const answer = suffix ? `${fakeAnswer(body.content)}\n\n${suffix}` : fakeAnswer(body.content);
    const questionId = nextId++;
    const answerId = nextId++;
    if (!body.stream) {
      sendJson(
        res,
        200,
        okEnvelope({ messageid: answerId, content: answer, totalToken: answer.length, noAnswer: false }),
      );
      return;
    }
    const stream = openStream(res, 'text/event-stream');
    for (const w of words(answer)) await stream.write(`${JSON.stringify({ content: w })}\n`);
    await stream.write(
      `${JSON.stringify({ QuestionID: questionId, AnswerID: answerId, Answer: answer, TotalToken: answer.length })}\n`,
    );
    stream.end();
  });

  server.on('POST', '/chat/Chatbot/Edit', (req, res) => {
    if (!checkSecret(req, res)) return;
    const body = parse(chatbotSettingsSchema, req, res);
    if (!body || !knownBot(body.serialNumber, res)) return;
    if (body.AnswerSuffix !== undefined) suffixes.set(body.serialNumber, body.AnswerSuffix);
    sendJson(res, 200, okEnvelope(1));
  });

  server.on('GET', '/chat/Chatbot/ModelList', (req, res) => {
    if (!checkSecret(req, res)) return;
    sendJson(
      res,
      200,
      okEnvelope([
        { Key: '1', Value: 'gpt-4o-mini', Status: true },
        { Key: '2', Value: 'gpt-4o', Status: true },
      ]),
    );
  });

  server.on('POST', '/chat/User/GetPreUploadUrl', (req, res) => {
    if (!checkSecret(req, res)) return;
    const body = parse(preUploadRequestSchema, req, res);
    if (!body) return;
    const id = nextId++;
    uploads.set(id, undefined);
    sendJson(res, 200, okEnvelope({ FileStoreId: String(id), PreUploadUrl: `${server.baseUrl}/upload/${id}?sig=abc` }));
  });

  const toWire = (id: number, l: ListingInput): ListingWireItem => {
    const s = (v: number | undefined) => (v === undefined ? '' : String(v));
    const price = l.SaleType === 'for_rent' ? l.RentPrice : l.SalePrice;
    return {
      ID: id,
      PropertyType: l.PropertyType,
      SaleType: l.SaleType,
      Status: l.Status,
      Images: JSON.stringify(l.Images ?? []),
      CurrencySymbol: l.CurrencySymbol,
      Price: s(price),
      State: l.State ?? '',
      City: l.City ?? '',
      Address: l.Address ?? '',
      ZIP: l.ZIP ?? '',
      Area: `${l.BuildingArea} ${l.AreaUnit}`,
      Url: l.Url,
      Tours: l.Tours ?? '',
      MLSNumber: l.MLSNumber,
      Description: l.Description ?? '',
      SpaceType: l.SpaceType ?? '',
      LATITUDE: l.Latitude ?? 0,
      LONGITUDE: l.Longitude ?? 0,
      Bathrooms: String(l.Bathrooms),
      Bedrooms: String(l.Bedrooms),
      YearBuilt: String(l.YearBuilt),
      DaysOnMarket: String(l.DaysOnMarket),
      LotArea: String(l.LotArea),
      BuildingArea: String(l.BuildingArea),
      ParkingSpots: String(l.ParkingSpots),
      ExtensionColumn: JSON.stringify(l.ExtensionColumn ?? []),
      RentPrice: s(l.RentPrice),
      DepositFee: s(l.DepositFee),
      SalePrice: s(l.SalePrice),
      UnitAreaPrice: s(l.UnitAreaPrice),
      EstimatePrice: s(l.EstimatePrice),
      HOAMonth: s(l.HOAMonth),
    };
  };
  const findKeys = (serial: string, key: string, keyType: string): number[] =>
    [...listings.entries()]
      .filter(
        ([id, l]) =>
          l.serial === serial &&
          (keyType === 'ListingId'
            ? String(id) === key
            : keyType === 'MLSNumber'
              ? l.input.MLSNumber === key
              : l.input.Url === key),
      )
      .map(([id]) => id);

  server.on('POST', '/chat/Chatbot/RealEstateCreate', (req, res) => {
    if (!checkEither(req, res)) return;
    const body = parse(listingCreateSchema, req, res);
    if (!body || !knownBot(body.SerialNumber, res)) return;
    const id = nextId++;
    listings.set(id, { serial: body.SerialNumber, input: body });
    sendJson(res, 200, okEnvelope(String(id)));
  });

  server.on('POST', '/chat/Chatbot/RealEstateUpdate', (req, res) => {
    if (!checkEither(req, res)) return;
    const body = parse(listingUpdateSchema, req, res);
    if (!body || !knownBot(body.SerialNumber, res)) return;
    const ids = findKeys(body.SerialNumber, body.Key, body.KeyType);
    if (ids.length === 0) return envelopeFail(res, 404, `no listing with ${body.KeyType} ${body.Key}`);
    const { Key: _k, KeyType: _t, ...input } = body;
    for (const id of ids) listings.set(id, { serial: body.SerialNumber, input });
    sendJson(res, 200, okEnvelope(ids.length));
  });

  server.on('POST', '/chat/Chatbot/RealEstateList', (req, res) => {
    if (!checkSession(req, res)) return;
    const body = parse(listingListRequestSchema, req, res);
    if (!body || !knownBot(body.SerialNumber, res)) return;
    const all = [...listings.entries()].filter(
      ([, l]) =>
        l.serial === body.SerialNumber &&
        (!body.CityName || l.input.City?.toLowerCase() === body.CityName.toLowerCase()) &&
        (!body.SaleType || l.input.SaleType === body.SaleType) &&
        (!body.MLSNumber || l.input.MLSNumber === body.MLSNumber),
    );
    const size = body.PageSize ?? 20;
    const page = body.PageNumber ?? 1;
    const slice = all.slice((page - 1) * size, page * size);
    sendJson(res, 200, okEnvelope({ List: slice.map(([id, l]) => toWire(id, l.input)), VirtualCount: all.length }));
  });

  server.on('POST', '/chat/Chatbot/RealEstateDelete', (req, res) => {
    if (!checkEither(req, res)) return;
    const body = parse(listingDeleteRequestSchema, req, res);
    if (!body || !knownBot(body.SerialNumber, res)) return;
    let count = 0;
    for (const key of body.Keys) {
      for (const id of findKeys(body.SerialNumber, key, body.KeyType)) {
        listings.delete(id);
        count++;
      }
    }
    sendJson(res, 200, okEnvelope({ SuccessCount: count }));
  });

  // ---- /v1 -------------------------------------------------------------------------------------------
  const v1Fail = (res: ServerResponse, status: number, code: string, message: string) =>
    sendJson(res, status, { success: false, error: { code, message } });
  const bearer = (req: RecordedRequest, res: ServerResponse) => {
    if (req.headers.authorization === `Bearer ${creds.apiKey}`) return true;
    v1Fail(res, 401, 'unauthorized', 'Authorization: missing or wrong API key');
    return false;
  };
  function v1Parse<S extends z.ZodTypeAny>(schema: S, value: unknown, res: ServerResponse): z.output<S> | undefined {
    const r = schema.safeParse(value);
    if (r.success) return r.data as z.output<S>;
    v1Fail(res, 400, 'bad_request', describeIssues(fieldIssues(r.error)));
    return undefined;
  }

  server.on('GET', '/v1/chatbots', (req, res) => {
    if (!bearer(req, res)) return;
    const page = Number(req.query.get('page') ?? 1);
    const limit = Number(req.query.get('limit') ?? 20);
    const all = [...v1bots.values()].filter((b) => !req.query.get('status') || b.status === req.query.get('status'));
    const items = all.slice((page - 1) * limit, page * limit).map(({ api_key: _a, ...b }) => b);
    sendJson(res, 200, {
      success: true,
      data: items,
      meta: { page, limit, total: all.length, pages: Math.max(1, Math.ceil(all.length / limit)) },
    });
  });
  server.on('POST', '/v1/chatbots', (req, res) => {
    if (!bearer(req, res)) return;
    const body = v1Parse(v1CreateChatbotBodySchema, req.json, res);
    if (!body) return;
    const bot: V1ChatbotWire = {
      id: `cb_${nextId++}`,
      name: body.name,
      description: body.description,
      status: 'draft',
      created_at: now(),
      updated_at: now(),
      settings: body.settings,
      api_key: `key_${nextId++}`,
    };
    v1bots.set(bot.id, bot);
    chatbots.add(bot.id);
    sendJson(res, 201, { success: true, data: bot });
  });
  server.on('POST', '/v1/conversations', (req, res) => {
    if (!bearer(req, res)) return;
    const body = v1Parse(v1StartConversationBodySchema, req.json, res);
    if (!body) return;
    if (!chatbots.has(body.chatbot_id)) return v1Fail(res, 404, 'not_found', `unknown chatbot ${body.chatbot_id}`);
    const conv = {
      id: `conv_${nextId++}`,
      chatbot_id: body.chatbot_id,
      status: 'active',
      created_at: now(),
      updated_at: now(),
      session_token: `st_${nextId++}`,
      user_id: body.user_id,
      messages: [] as V1MessageWire[],
    };
    v1convs.set(conv.id, conv);
    const { messages: _m, ...rest } = conv;
    sendJson(res, 201, { success: true, data: rest });
  });
  server.on('GET', '/v1/analytics/overview', (req, res) => {
    if (!bearer(req, res)) return;
    const convs = [...v1convs.values()];
    const messages = convs.reduce((n, c) => n + c.messages.length, 0);
    sendJson(res, 200, {
      success: true,
      data: {
        period: {
          start: req.query.get('start_date') ?? '2024-01-01T00:00:00Z',
          end: req.query.get('end_date') ?? now(),
        },
        metrics: {
          total_conversations: convs.length,
          total_messages: messages,
          unique_users: new Set(convs.map((c) => c.user_id)).size,
          avg_conversation_length: convs.length ? messages / convs.length : 0,
          resolution_rate: 0,
          avg_response_time: 0.1,
        },
      },
    });
  });

  // Paths with ids: a catch-all dispatcher registered for every method used.
  const byPath = async (req: RecordedRequest, res: ServerResponse): Promise<boolean | void> => {
    if (!req.path.startsWith('/v1/')) return false;
    if (!bearer(req, res)) return;
    let m: RegExpExecArray | null;
    if ((m = /^\/v1\/chatbots\/([^/]+)$/.exec(req.path)) && req.method === 'PATCH') {
      const bot = v1bots.get(decodeURIComponent(m[1]));
      if (!bot) return v1Fail(res, 404, 'not_found', `unknown chatbot ${m[1]}`);
      const body = v1Parse(v1UpdateChatbotBodySchema, req.json, res);
      if (!body) return;
      if (body.name) bot.name = body.name;
      if (body.settings) bot.settings = { ...(bot.settings ?? {}), ...body.settings };
      bot.updated_at = now();
      const { api_key: _a, ...rest } = bot;
      return sendJson(res, 200, { success: true, data: rest });
    }
    if ((m = /^\/v1\/conversations\/([^/]+)$/.exec(req.path)) && req.method === 'GET') {
      const conv = v1convs.get(decodeURIComponent(m[1]));
      if (!conv) return v1Fail(res, 404, 'not_found', `unknown conversation ${m[1]}`);
      const include = req.query.get('include_messages') !== 'false';
      const { messages, ...rest } = conv;
      return sendJson(res, 200, { success: true, data: include ? { ...rest, messages } : rest });
    }
    if ((m = /^\/v1\/conversations\/([^/]+)\/messages$/.exec(req.path)) && req.method === 'POST') {
      const conv = v1convs.get(decodeURIComponent(m[1]));
      if (!conv) return v1Fail(res, 404, 'not_found', `unknown conversation ${m[1]}`);
      const body = v1Parse(v1SendMessageBodySchema, req.json, res);
      if (!body) return;
      const userMsg = { id: `msg_${nextId++}`, role: 'user', content: body.content, timestamp: now() };
      const answer = fakeAnswer(body.content);
      const botMsg = { id: `msg_${nextId++}`, role: 'assistant', content: answer, timestamp: now() };
      conv.messages.push(userMsg, botMsg);
      const result = {
        message_id: userMsg.id,
        conversation_id: conv.id,
        response: { id: botMsg.id, content: answer, timestamp: botMsg.timestamp },
      };
      if (!body.stream) return sendJson(res, 200, { success: true, data: result });
      const stream = openStream(res, 'text/event-stream');
      for (const w of words(answer)) await stream.write(`data: ${JSON.stringify({ content: w })}\n\n`);
      await stream.write(`data: ${JSON.stringify(result)}\n\n`);
      return stream.end();
    }
    if ((m = /^\/v1\/users\/([^/]+)\/conversations$/.exec(req.path)) && req.method === 'GET') {
      const user = decodeURIComponent(m[1]);
      const limit = Number(req.query.get('limit') ?? 20);
      const status = req.query.get('status');
      const all = [...v1convs.values()].filter((c) => c.user_id === user && (!status || c.status === status));
      const data = all.slice(0, limit).map(({ messages, ...c }) => ({ ...c, message_count: messages.length }));
      return sendJson(res, 200, { success: true, data, meta: { total: all.length, limit } });
    }
    v1Fail(res, 404, 'not_found', `no route ${req.method} ${req.path}`);
  };
  server.fallback(byPath);

  // The presigned upload target (no credentials: the URL is signed).
  server.fallback(async (req, res) => {
    const m = /^\/upload\/(\d+)$/.exec(req.path);
    if (req.method === 'PUT' && m && uploads.has(Number(m[1])) && req.query.get('sig') === 'abc') {
      uploads.set(Number(m[1]), req.body);
      res.writeHead(200).end();
      return true;
    }
    return false;
  });
  return server;
}
