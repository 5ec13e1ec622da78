import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { z } from 'zod';
import { listingParagraph } from './format';
import { hasCriteria, parseIntent } from './intent';
import { phrasesFor } from './phrases';
import { filter, vocabulary } from './query';
import { type AnswerOutcome, type AnswerRequest, type Answerer, estimateTokens } from './types';

export interface LlmOptions {
  /** OpenAI-compatible base, e.g. https://api.openai.com/v1 (…/chat/completions is appended). */
  baseUrl: string;
  apiKey?: string;
  model?: string;
}

const CONTEXT_LISTINGS = 10;
const HISTORY_MESSAGES = 10;
const READ_CAP = 5000;

/** One chunk of a streamed chat completion: only the members used here. */
const chunkSchema = z.object({
  choices: z
    .array(z.object({ delta: z.object({ content: z.string().nullish() }).partial().nullish() }).passthrough())
    .optional()
    .default([]),
  usage: z.object({ total_tokens: z.number().int() }).partial().nullish(),
});

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Answers through a streaming OpenAI-compatible /chat/completions call. */
export class LlmAnswerer implements Answerer {
  constructor(private readonly opts: LlmOptions) {}

  async *answer(req: AnswerRequest): AsyncGenerator<string, AnswerOutcome, void> {
    const messages = buildMessages(req);
    const s = req.chatbot.settings;
    const body = await this.complete(req, messages);
    let answer = '';
    let usageTokens: number | undefined;
    const texts = completionTexts(body);
    try {
      let next = await texts.next();
      for (; !next.done; next = await texts.next()) {
        answer += next.value;
        yield next.value;
      }
      usageTokens = next.value;
    } finally {
      // A caller that stops early (an aborted answer) still releases the stream.
      await texts.return(undefined);
    }
    const suffix = s.AnswerSuffix;
    if (suffix && answer.trim() !== '') {
      const tail = `\n\n${suffix}`;
      answer += tail;
      yield tail;
    }
    return {
      noAnswer: answer.trim() === '',
      totalTokens: usageTokens ?? estimateTokens(...messages.map((m) => m.content), answer),
    };
  }

  /** Starts the streamed completion; its body is the event stream. */
  private async complete(req: AnswerRequest, messages: ChatMessage[]): Promise<ReadableStream<Uint8Array>> {
    const res = await fetch(`${this.opts.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.opts.model ?? 'gpt-4o-mini',
        messages,
        temperature: llmTemperature(req.chatbot.settings.Temperature),
        stream: true,
        stream_options: { include_usage: true },
      }),
      signal: req.signal,
    });
    if (!res.ok || !res.body) {
      throw new Error(`the language model answered HTTP ${res.status}`);
    }
    return res.body;
  }
}

/** The text pieces of a streamed chat completion as they arrive; returns the usage's total tokens, if sent. */
async function* completionTexts(body: ReadableStream<Uint8Array>): AsyncGenerator<string, number | undefined, void> {
  const queue: string[] = [];
  let usageTokens: number | undefined;
  let done = false;
  const parser = createParser({
    onEvent(ev: EventSourceMessage) {
      if (ev.data.trim() === '[DONE]') {
        done = true;
        return;
      }
      const chunk = parseChunk(ev.data);
      if (!chunk) return;
      for (const choice of chunk.choices) {
        const text = choice.delta?.content;
        if (text) queue.push(text);
      }
      if (chunk.usage?.total_tokens !== undefined) usageTokens = chunk.usage.total_tokens;
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    while (!done) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
      yield* queue.splice(0);
    }
    parser.feed(decoder.decode());
    yield* queue.splice(0);
  } finally {
    reader.releaseLock();
    void body.cancel().catch(() => undefined);
  }
  return usageTokens;
}

/** One event's chunk, or undefined for a keep-alive or comment-like line (nothing to relay). */
function parseChunk(data: string): z.infer<typeof chunkSchema> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  const chunk = chunkSchema.safeParse(json);
  return chunk.success ? chunk.data : undefined;
}

/** The interface's Temperature is an integer; 0-2 is taken as is, larger values as a percentage. */
export function llmTemperature(t: number): number {
  if (t <= 2) return Math.max(0, t);
  return Math.min(2, t / 100);
}

export function buildMessages(req: AnswerRequest): ChatMessage[] {
  const s = req.chatbot.settings;
  const all = req.listings.search(req.chatbot.id, {}, READ_CAP);
  const intent = parseIntent(req.question, vocabulary(all));
  const relevant = (hasCriteria(intent.criteria) ? filter(all, intent.criteria) : all).slice(0, CONTEXT_LISTINGS);
  const mls = all.filter((l) => intent.mlsCandidates.includes(l.data.MLSNumber.toUpperCase())).slice(0, 3);
  const p = phrasesFor('English');
  const context = [...mls, ...relevant.filter((l) => !mls.some((m) => m.id === l.id))].map((l) =>
    listingParagraph(l, p),
  );
  const system = [
    s.SystemMessage,
    `Always answer in ${s.AIResponseLanguage || 'English'}.`,
    `When you cannot help, say: ${s.TalkToHumanResponseMessage}`,
    context.length > 0
      ? `Listings relevant to the question:\n${context.join('\n')}`
      : 'No listing matches the question.',
  ].join('\n\n');
  const files = req.files.map((f) => `[${f.kind.toLowerCase()} attached: ${f.fileName}]`).join(' ');
  return [
    { role: 'system', content: system },
    ...req.history.slice(-HISTORY_MESSAGES).map((m): ChatMessage => ({ role: m.role, content: m.content })),
    { role: 'user', content: [req.question, files].filter(Boolean).join(' ') },
  ];
}
