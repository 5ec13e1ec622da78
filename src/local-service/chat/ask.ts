import { ASK_FILE_RULES, type ChatAskType, SERVICE_CODES } from '../../service/schemas';
import type { AnswerOutcome, AttachedFile } from '../answerer/types';
import type { ChatbotRecord } from '../chatbots/chatbots-repo';
import { badRequest, Failure } from '../server/failure';
import type { ServiceContext } from '../server/context';
import { kindOfFormat } from '../uploads/file-kind';
import type { MessageRecord, SessionRecord } from './chat-repo';

const HISTORY = 20;

const ACCEPTS: Record<'Image' | 'Audio' | 'Video', string> = {
  Image: 'PNG, JPEG, WEBP or non-animated GIF',
  Audio: 'WAV only',
  Video: 'MP4, MKV, AVI, FLV or MPEG',
};

/** The uploaded files `fileIds` names, each checked against the mode's kinds and sizes (4.2, 8). */
export function resolveFiles(ctx: ServiceContext, mode: ChatAskType, fileIds: readonly number[]): AttachedFile[] {
  if (mode === 'Text') return [];
  const rule = ASK_FILE_RULES[mode];
  return fileIds.map((id) => {
    const up = ctx.uploads.get(id);
    if (!up)
      throw badRequest(
        `fileIds: no uploaded file has id ${id}; get an upload URL with GetPreUploadUrl and PUT the file first`,
      );
    const label = `file ${id} (${up.fileName})`;
    if (up.size === null)
      throw badRequest(`fileIds: ${label} has not been uploaded yet; PUT its bytes to the PreUploadUrl first`);
    if (kindOfFormat(up.format ?? undefined) !== mode) {
      const what =
        up.format === 'animated-gif'
          ? 'an animated GIF'
          : `not ${mode === 'Audio' ? 'a WAV file' : mode === 'Image' ? 'an image' : 'a video'}`;
      throw badRequest(`fileIds: ${label} is ${what}; chatAskType ${mode} accepts ${ACCEPTS[mode]}`);
    }
    if (up.size > rule.maxBytes) {
      throw badRequest(
        `fileIds: ${label} is ${(up.size / 1048576).toFixed(1)} MB; ${mode.toLowerCase()} files may be up to ${rule.maxBytes / 1048576} MB`,
      );
    }
    return { id, fileName: up.fileName, kind: mode };
  });
}

function startOfMonthUtc(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** RateLimitCount per RateLimitTime per session, then MessageLimit per calendar month per chatbot. */
export function checkLimits(ctx: ServiceContext, chatbot: ChatbotRecord, session: SessionRecord): void {
  const s = chatbot.settings;
  const now = ctx.now();
  if (s.RateLimitCount > 0 && s.RateLimitTime > 0) {
    const recent = ctx.chat.userMessagesInSessionSince(session.id, now - s.RateLimitTime * 1000);
    if (recent >= s.RateLimitCount)
      throw new Failure(SERVICE_CODES.rateLimited, s.RateLimitMessage || 'Too many messages; please wait a moment.');
  }
  if (s.MessageLimit >= 0) {
    const used = ctx.chat.userMessagesOfChatbotSince(chatbot.id, startOfMonthUtc(now));
    if (used >= s.MessageLimit) {
      throw new Failure(
        SERVICE_CODES.quotaExceeded,
        `The monthly message limit of chatbot ${chatbot.id} is reached (MessageLimit ${s.MessageLimit} messages per calendar month).`,
      );
    }
  }
}

export interface AskResult {
  question: MessageRecord;
  answer: MessageRecord;
  text: string;
  outcome: AnswerOutcome;
}

/**
 * One question and its answer. `begin` checks and stores the question synchronously (so concurrent
 * asks count against the limits in arrival order); `run` streams the answer through `onFragment`
 * and stores it once complete.
 */
export class Ask {
  private constructor(
    private readonly ctx: ServiceContext,
    private readonly chatbot: ChatbotRecord,
    private readonly session: SessionRecord,
    private readonly files: AttachedFile[],
    private readonly mode: ChatAskType,
    readonly question: MessageRecord,
    private readonly history: MessageRecord[],
  ) {}

  static begin(
    ctx: ServiceContext,
    session: SessionRecord,
    input: { content: string; mode: ChatAskType; fileIds: readonly number[] },
  ): Ask {
    const chatbot = ctx.chatbots.get(session.chatbotId);
    if (!chatbot)
      throw new Failure(
        SERVICE_CODES.notFound,
        `Chatbot ${session.chatbotId} of session ${session.id} no longer exists`,
      );
    const files = resolveFiles(ctx, input.mode, input.fileIds);
    checkLimits(ctx, chatbot, session);
    const history = ctx.chat.recentMessages(session.id, HISTORY);
    const question = ctx.chat.addMessage(session, { role: 'user', content: input.content });
    return new Ask(ctx, chatbot, session, files, input.mode, question, history);
  }

  async run(onFragment: (text: string) => void, signal?: AbortSignal): Promise<AskResult> {
    const started = Date.now();
    const gen = this.ctx.answerer.answer({
      chatbot: this.chatbot,
      question: this.question.content,
      mode: this.mode,
      files: this.files,
      history: this.history,
      listings: this.ctx.listings,
      signal,
    });
    let text = '';
    let step = await gen.next();
    while (!step.done) {
      text += step.value;
      onFragment(step.value);
      step = await gen.next();
    }
    const outcome = step.value;
    const answer = this.ctx.chat.addMessage(this.session, {
      role: 'assistant',
      content: text,
      noAnswer: outcome.noAnswer,
      totalToken: outcome.totalTokens,
      responseMs: Date.now() - started,
    });
    return { question: this.question, answer, text, outcome };
  }
}
