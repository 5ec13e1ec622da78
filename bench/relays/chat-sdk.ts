/**
 * Vercel's Chat SDK (`chat` with `@chat-adapter/slack` and `@chat-adapter/state-memory`) as a user
 * builds an AI bot with it: `onNewMention` streams the answer with `thread.post(textStream)`, the
 * way its docs stream an AI SDK answer. Each answer arrives as a signed `app_mention` webhook for the
 * user's question (the thread's root), handed to `bot.webhooks.slack`, so the handler's thread has
 * the message context the Slack adapter needs for native streaming (chat.startStream / appendStream
 * / stopStream through @slack/web-api's chatStream); where Slack refuses native streaming the adapter
 * falls back to post and edit. The adapter's Web API client is pointed at the fake Slack through its
 * public `apiUrl` option, with its defaults otherwise (the Web API client's own 429 retries included).
 *
 * The SDK is ESM-only and this bench is CommonJS: it is loaded with a dynamic import() that
 * TypeScript leaves alone.
 */
import { createHmac } from 'node:crypto';
import type { Chat } from 'chat';
import type { AnswerEvent } from '../../src/service/answer-events';
import { AbortedError, type BenchAnswer, type BenchRelay } from './common';

type ChatModule = typeof import('chat');
type SlackModule = typeof import('@chat-adapter/slack');
type MemoryModule = typeof import('@chat-adapter/state-memory');
type SlackConfig = NonNullable<Parameters<SlackModule['createSlackAdapter']>[0]>;
type WebApiLogger = NonNullable<NonNullable<SlackConfig['webClientOptions']>['logger']>;

/** The fake Slack this relay talks to. */
export interface ChatSdkTarget {
  apiUrl: string;
  botToken: string;
  botUserId: string;
  team: string;
}

const SIGNING_SECRET = 'bench-chat-sdk-signing-secret';

// `new Function` keeps TypeScript from compiling import() to require(), which cannot load ESM on Node 20.
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/** The answer's text fragments, as an AI SDK textStream gives them; the final event ends it. */
async function* textOf(events: AsyncIterable<AnswerEvent>): AsyncIterable<string> {
  for await (const ev of events) {
    if (ev.type !== 'delta') return;
    yield ev.text;
  }
}

/** A @slack/web-api logger that drops everything. */
function quietWebApiLogger(): WebApiLogger {
  const none = (): void => {};
  let level = 'error' as ReturnType<WebApiLogger['getLevel']>;
  return {
    debug: none,
    info: none,
    warn: none,
    error: none,
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: none,
  };
}

export class ChatSdkRelay implements BenchRelay {
  readonly name = 'Chat SDK (chat 4.41)';
  /** Each answer's text stream and its handler's outcome, by the Chat SDK's thread id. */
  private readonly pending = new Map<string, AsyncIterable<string>>();
  private events = 0;

  private constructor(
    private readonly bot: Chat,
    private readonly target: ChatSdkTarget,
  ) {
    bot.onNewMention(async (thread) => {
      const stream = this.pending.get(thread.id);
      if (!stream) throw new Error(`no answer for ${thread.id}`);
      await thread.post(stream);
    });
  }

  static async create(target: ChatSdkTarget): Promise<ChatSdkRelay> {
    const sdk = (await importEsm('chat')) as ChatModule;
    const { createSlackAdapter } = (await importEsm('@chat-adapter/slack')) as SlackModule;
    const { createMemoryState } = (await importEsm('@chat-adapter/state-memory')) as MemoryModule;
    const level = process.env.BENCH_LOG ? 'warn' : 'silent';
    const slack = createSlackAdapter({
      apiUrl: target.apiUrl,
      botToken: target.botToken,
      botUserId: target.botUserId,
      signingSecret: SIGNING_SECRET,
      logger: new sdk.ConsoleLogger(level),
      // Only its log lines are quieted (its Retry-After waits are logged per call); its behaviour is the default.
      ...(process.env.BENCH_LOG ? {} : { webClientOptions: { logger: quietWebApiLogger() } }),
    });
    const bot = new sdk.Chat({ userName: 'bench', adapters: { slack }, state: createMemoryState(), logger: level });
    return new ChatSdkRelay(bot, target);
  }

  async relay(a: BenchAnswer): Promise<void> {
    const { channel, thread } = a.place;
    if (!thread) throw new Error('the Chat SDK relay answers in a thread');
    this.pending.set(`slack:${channel}:${thread}`, textOf(a.events));
    const handled: Array<Promise<unknown>> = [];
    const res = await this.bot.webhooks.slack(this.mention(channel, thread), {
      waitUntil: (task) => handled.push(task),
      propagateHandlerErrors: true,
    });
    if (res.status !== 200) throw new Error(`Chat SDK webhook answered ${res.status}: ${await res.text()}`);
    // The SDK's Web API client waits out 429s itself, for as long as its retry policy allows: the run's
    // deadline stops waiting for it (the calls it still makes then reach a closed fake).
    const aborted = new Promise<never>((_, reject) => {
      if (a.signal.aborted) reject(new AbortedError());
      a.signal.addEventListener('abort', () => reject(new AbortedError()), { once: true });
    });
    try {
      await Promise.race([Promise.all(handled), aborted]);
    } finally {
      this.pending.delete(`slack:${channel}:${thread}`);
      void Promise.allSettled(handled);
      aborted.catch(() => {});
    }
  }

  /** The signed Events API request Slack sends when the user's question mentions the bot. */
  private mention(channel: string, ts: string): Request {
    this.events++;
    const body = JSON.stringify({
      token: 'bench',
      team_id: this.target.team,
      api_app_id: 'ABENCH',
      type: 'event_callback',
      event_id: `EvBENCH${this.events}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'app_mention',
        user: `U${channel}`,
        text: `<@${this.target.botUserId}> question`,
        ts,
        channel,
        event_ts: ts,
        team: this.target.team,
      },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    return new Request('https://bench.invalid/api/webhooks/slack', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signature,
      },
      body,
    });
  }

  async close(): Promise<void> {
    await this.bot.shutdown();
  }
}
