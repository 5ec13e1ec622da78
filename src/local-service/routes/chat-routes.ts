import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  API_VERSION,
  chatbotSettingsSchema,
  clientAskRequestSchema,
  getSessionRequestSchema,
  listingCreateSchema,
  listingDeleteRequestSchema,
  listingListRequestSchema,
  listingUpdateSchema,
  type ModelListWire,
  okEnvelope,
  preUploadRequestSchema,
  SERVICE_CODES,
} from '../../service/schemas';
import { Ask } from '../chat/ask';
import type { ChatbotRecord } from '../chatbots/chatbots-repo';
import { checkFirstFamily, type FirstFamilyCredential } from '../server/auth';
import type { ServiceContext } from '../server/context';
import { badRequest, Failure, notFound, parseWith } from '../server/failure';
import { openObjectStream } from '../server/stream';

/** The models Edit's `Model` may name (by Key); Status false ones are listed but not selectable. */
export const MODELS: ModelListWire = [
  { Key: '1', Value: 'gpt-4o-mini', Status: true },
  { Key: '2', Value: 'gpt-4o', Status: true },
  { Key: '3', Value: 'gpt-4.1', Status: true },
  { Key: '4', Value: 'gpt-4.1-mini', Status: true },
  { Key: '5', Value: 'gpt-3.5-turbo', Status: false },
];

const MAX_PAGE_SIZE = 1000;

function chatbotOf(ctx: ServiceContext, id: string, field: string): ChatbotRecord {
  const c = ctx.chatbots.get(id);
  if (!c) throw notFound(`Unknown chatbot '${id}' (${field}): no chatbot has this id`);
  return c;
}

type Handler = (req: FastifyRequest, reply: FastifyReply) => unknown;

/** Registers one first-family operation: POST with a JSON body, its credential checked, answered with the envelope. */
type Op = (path: string, needs: FirstFamilyCredential, run: Handler) => void;

function opsOf(app: FastifyInstance, ctx: ServiceContext): Op {
  return (path, needs, run) => {
    app.post(path, async (req, reply) => {
      checkFirstFamily(ctx, req, needs);
      const data = await run(req, reply);
      // A handler that took the reply over (stream) or sent it itself has answered already.
      if (reply.sent) return reply;
      return okEnvelope(data);
    });
  };
}

/** Every first-family operation. */
export function registerChatRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const op = opsOf(app, ctx);
  registerChatbotOps(app, ctx, op);
  op('/chat/Chat/ClientAsk', 'secret', (req, reply) => clientAsk(ctx, req, reply));
  registerListingOps(ctx, op);
}

function registerChatbotOps(app: FastifyInstance, ctx: ServiceContext, op: Op): void {
  op('/chat/Chatbot/Edit', 'secret', (req) => {
    const body = parseWith(chatbotSettingsSchema, req.body);
    const { serialNumber, ...change } = body;
    chatbotOf(ctx, serialNumber, 'serialNumber');
    if (change.Model !== undefined) {
      const model = MODELS.find((m) => String(m.Key) === change.Model);
      const allowed = MODELS.filter((m) => m.Status)
        .map((m) => `${m.Key} (${m.Value})`)
        .join(', ');
      if (!model) throw badRequest(`Model must be the Key of a model from ModelList: ${allowed}`);
      if (!model.Status)
        throw badRequest(`Model ${change.Model} (${model.Value}) is not available; choose one of ${allowed}`);
    }
    ctx.chatbots.update(serialNumber, { settings: change });
    return 1;
  });

  op('/chat/Chatbot/GetSession', 'secret', (req) => {
    const { serialNumber } = parseWith(getSessionRequestSchema, req.body);
    chatbotOf(ctx, serialNumber, 'serialNumber');
    return { SessionID: ctx.chat.createSession(serialNumber).id };
  });

  const models: Handler = (req, reply) => {
    checkFirstFamily(ctx, req, 'secret');
    return reply.send(okEnvelope(MODELS));
  };
  app.get('/chat/Chatbot/ModelList', models);
  app.post('/chat/Chatbot/ModelList', models);

  op('/chat/User/GetPreUploadUrl', 'secret', (req) => {
    const { fileName } = parseWith(preUploadRequestSchema, req.body);
    const up = ctx.uploads.create(fileName);
    const url = `${req.protocol}://${req.host}/upload/${up.id}?token=${up.token}&expires=${up.expiresAt}`;
    return { FileStoreId: String(up.id), PreUploadUrl: url };
  });
}

/** ClientAsk: the answer in one envelope, or streamed in the service's framing. */
async function clientAsk(ctx: ServiceContext, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = parseWith(clientAskRequestSchema, req.body);
  const session = ctx.chat.getSession(body.sessionID);
  if (!session) throw notFound(`Unknown sessionID ${body.sessionID}: create a chat session with GetSession first`);
  const ask = Ask.begin(ctx, session, {
    content: body.content,
    mode: body.chatAskType ?? 'Text',
    fileIds: body.fileIds ?? [],
  });

  if (!body.stream) {
    const r = await ask.run(() => undefined);
    return {
      messageid: r.answer.id,
      content: r.text,
      totalToken: r.outcome.totalTokens,
      noAnswer: r.outcome.noAnswer,
    };
  }

  // Headers go out with the first fragment, so a failure before it is still an envelope.
  let stream: ReturnType<typeof openObjectStream> | undefined;
  const abort = new AbortController();
  try {
    const r = await ask.run((content) => {
      if (!stream) {
        stream = openObjectStream(reply, ctx.framing);
        stream.signal.addEventListener('abort', () => abort.abort(), { once: true });
      }
      stream.send({ content });
    }, abort.signal);
    stream ??= openObjectStream(reply, ctx.framing);
    stream.send({
      QuestionID: r.question.id,
      AnswerID: r.answer.id,
      Answer: r.text,
      TotalToken: r.outcome.totalTokens,
      noAnswer: r.outcome.noAnswer,
    });
    stream.end();
  } catch (err) {
    if (!stream) throw answererFailure(err);
    req.log.warn({ err: (err as Error).message }, 'answer stream broke');
    // Ending without the final object is how a client learns the answer is incomplete.
    stream.end();
  }
  return undefined;
}

function registerListingOps(ctx: ServiceContext, op: Op): void {
  op('/chat/Chatbot/RealEstateCreate', 'either', (req) => {
    const { SerialNumber, ...data } = parseWith(listingCreateSchema, req.body);
    chatbotOf(ctx, SerialNumber, 'SerialNumber');
    return String(ctx.listings.create(SerialNumber, data));
  });

  op('/chat/Chatbot/RealEstateUpdate', 'either', (req) => {
    const { SerialNumber, Key, KeyType, ...data } = parseWith(listingUpdateSchema, req.body);
    chatbotOf(ctx, SerialNumber, 'SerialNumber');
    const n = ctx.listings.update(SerialNumber, KeyType, Key, data);
    if (n === 0) throw notFound(`No listing of chatbot '${SerialNumber}' has ${KeyType} '${Key}' (Key)`);
    return n;
  });

  op('/chat/Chatbot/RealEstateDelete', 'either', (req) => {
    const { SerialNumber, Keys, KeyType } = parseWith(listingDeleteRequestSchema, req.body);
    chatbotOf(ctx, SerialNumber, 'SerialNumber');
    return { SuccessCount: ctx.listings.delete(SerialNumber, KeyType, Keys) };
  });

  op('/chat/Chatbot/RealEstateList', 'session', (req, reply) => {
    const body = parseWith(listingListRequestSchema, req.body);
    chatbotOf(ctx, body.SerialNumber, 'SerialNumber');
    const pageSize = body.PageSize ?? 20;
    if (pageSize > MAX_PAGE_SIZE) throw badRequest(`PageSize must be from 1 to ${MAX_PAGE_SIZE}`);
    const { itemsJson, total } = ctx.listings.list(
      body.SerialNumber,
      { city: body.CityName, saleType: body.SaleType, mlsNumber: body.MLSNumber },
      body.PageNumber ?? 1,
      pageSize,
    );
    // Items are stored serialized: the page is assembled as text rather than parsed and re-encoded.
    const json =
      `{"Data":{"List":[${itemsJson}],"VirtualCount":${total}},` +
      `"Version":${JSON.stringify(API_VERSION)},"Success":true,"Code":200,"Message":""}`;
    return reply.type('application/json; charset=utf-8').send(json);
  });
}

function answererFailure(err: unknown): Failure {
  if (err instanceof Failure) return err;
  return new Failure(SERVICE_CODES.internal, `The chatbot could not answer: ${(err as Error).message}`, 502);
}
