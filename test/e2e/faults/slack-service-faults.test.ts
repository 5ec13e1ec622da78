/**
 * Faults of the chatbot service seen through the whole Slack bridge: the service answering 5xx,
 * never answering, cutting a stream mid-answer, and refusing with its own words (rate limit,
 * monthly cap). The service is the real local one behind a scripted proxy that records every call.
 */
import type { ServerResponse } from 'node:http';
import { openStream, status, hang, type Handler, type RecordedRequest } from '../../support/fake-chatbot-server';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button, shown as slackShown } from '../../../fakes/slack-blocks';
import { answerMessages, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { behindServiceProxy } from './service-proxy';

/** The text a Slack user reads of an answer's messages, in order. */
function answerText(messages: FakeMessage[]): string {
  return messages.map((m) => slackShown(m.text)).join('\n');
}

/** Everything a Slack user sees of a message: its text and its blocks' words. */
function shown(m: FakeMessage): string {
  return `${m.text}\n${JSON.stringify(m.blocks)}`;
}

/** A message still looking busy: a live stream, a placeholder, or the typing mark. */
function unfinished(m: FakeMessage): boolean {
  return m.streaming === true || /Thinking…/.test(shown(m)) || shown(m).includes('▍');
}

function sessionOf(r: RecordedRequest): unknown {
  return (r.json as { sessionID?: unknown } | undefined)?.sessionID;
}

describe.each([
  ['native streaming', 'on'],
  ['chat.update (native streaming refused)', 'feature_not_enabled'],
] as const)('Slack e2e faults, answers through %s: the chatbot service fails', (_mode, streaming) => {
  // The bridge asks the service through the proxy: both start together, the bridge closes first.
  const started = useStarted(() =>
    behindServiceProxy((url) =>
      startSlackE2E({ fragmentDelayMs: 2, env: { CHATBOT_API_URL: url }, fake: { streaming } }),
    ),
  );

  /** /ask in a fresh channel; resolves with the thread root once it is posted. */
  async function ask(channel: string, question: string): Promise<FakeMessage> {
    const { e } = started;
    const ack = await e.driver.command('/ask', question, { user: 'U0USER1', channel });
    expect(ack.status).toBe(200);
    expect(e.driver.lateAcks).toEqual([]);
    return waitFor(() => rootFor(e.fake, channel, question), `the root of "${question}"`);
  }

  /** The bot's replies once none of them looks busy any more and one matches `done`. */
  async function settled(
    channel: string,
    root: FakeMessage,
    done: (m: FakeMessage) => boolean,
    timeoutMs = 20_000,
  ): Promise<FakeMessage[]> {
    const { e } = started;
    return waitFor(
      () => {
        const msgs = answerMessages(e.fake, channel, root.ts);
        return msgs.length > 0 && !msgs.some(unfinished) && msgs.some(done) ? msgs : undefined;
      },
      `a settled reply in ${channel}`,
      timeoutMs,
    ).catch((err: unknown) => {
      throw new Error(
        `${String(err)}; the thread shows ${JSON.stringify(answerMessages(e.fake, channel, root.ts).map((m) => ({ text: m.text, streaming: m.streaming, blocks: m.blocks })))}`,
      );
    });
  }

  test('ClientAsk answering HTTP 500: the user is told in the thread, no placeholder is left, and Retry answers', async () => {
    const { e, proxy } = started;
    const before = proxy.asks().length;
    proxy.scriptAsk(status(500, { error: 'internal' }));
    const q = 'Homes for sale in Austin? (5xx)';
    const root = await ask('C0F5XX', q);
    const msgs = await settled('C0F5XX', root, (m) => /chatbot service/i.test(shown(m)));
    const told = msgs.find((m) => /chatbot service/i.test(shown(m)))!;
    expect(shown(told)).toMatch(/500/);
    // A server error is not the service's answer: nothing was retried behind the user's back.
    expect(proxy.asks().length - before).toBe(1);
    const retry = button(told, 'Retry');
    expect(retry).toBeDefined();
    await e.driver.click(retry!, { channel: 'C0F5XX', messageTs: told.ts, threadTs: root.ts });
    const { messages } = await waitForAnswer(e, 'C0F5XX', root.ts, q);
    // Retry asked the same question again: the answer is about it, in the conversation's thread.
    expect(answerText(messages)).toContain('homes for sale in Austin');
    for (const m of messages) expect(m.thread_ts).toBe(root.ts);
    expect(answerMessages(e.fake, 'C0F5XX', root.ts).some(unfinished)).toBe(false);
  });

  test('ClientAsk never answering (no response headers): a clear message within the header timeout, with Retry', async () => {
    const { proxy } = started;
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const silent: Handler = (req, res, raw) => {
      res.on('close', () => closed());
      return hang(req, res, raw);
    };
    proxy.scriptAsk(silent);
    const q = 'Condos in Miami? (timeout)';
    const root = await ask('C0FTIMEOUT', q);
    const msgs = await settled('C0FTIMEOUT', root, (m) => button(m, 'Retry') !== undefined, 40_000);
    const told = msgs.find((m) => button(m, 'Retry'))!;
    expect(shown(told)).toMatch(/stopped responding|did not answer|no new text|timed? ?out/i);
    // The bridge gave up on the request: it does not hold the connection open.
    await requestClosed;
  }, 60_000);

  test('a stream cut mid-answer keeps the partial text, marked interrupted with Retry; Retry asks again in the same thread and session and completes', async () => {
    const { e, proxy } = started;
    const partial = 'Here are the homes I found so far: a bright loft';
    const cut: Handler = async (_req, res: ServerResponse) => {
      const s = openStream(res, 'text/event-stream');
      await s.write(`data: ${JSON.stringify({ content: 'Here are the homes ' })}\n\n`);
      await s.write(`data: ${JSON.stringify({ content: 'I found so far: ' })}\n\n`);
      await s.write(`data: ${JSON.stringify({ content: 'a bright loft' })}\n\n`);
      s.destroy();
    };
    proxy.scriptAsk(cut);
    const before = proxy.asks().length;
    const q = 'Lofts for rent in Denver? (cut)';
    const root = await ask('C0FCUT', q);
    const msgs = await settled('C0FCUT', root, (m) => button(m, 'Retry') !== undefined);
    const marked = msgs.find((m) => button(m, 'Retry'))!;
    expect(marked.text).toBe(partial);
    expect(shown(marked)).toMatch(/interrupted/i);
    const firstAsk = proxy.asks()[before]!;

    const res = await e.driver.click(button(marked, 'Retry')!, {
      channel: 'C0FCUT',
      messageTs: marked.ts,
      threadTs: root.ts,
    });
    expect(res.status).toBe(200);
    const { messages } = await waitForAnswer(e, 'C0FCUT', root.ts, q);
    // The retry went to the same chat session, in the same thread.
    const asks = proxy.asks().slice(before);
    expect(asks).toHaveLength(2);
    expect(sessionOf(asks[1]!)).toBe(sessionOf(firstAsk));
    expect((asks[1]!.json as { content?: string }).content).toBe(q);
    for (const m of messages) expect(m.thread_ts).toBe(root.ts);
    // The interrupted answer stays as it was (partial text kept), and nothing looks busy.
    expect(e.fake.message('C0FCUT', marked.ts)!.text).toBe(partial);
    expect(answerMessages(e.fake, 'C0FCUT', root.ts).some(unfinished)).toBe(false);
  });

  test("the chatbot's rate limit (Success:false with its RateLimitMessage) is shown word for word and not retried", async () => {
    const { e, proxy } = started;
    const limitMessage = 'Easy there! This chatbot takes 1 question per hour — try again later. [rl-7]';
    const chatbot = e.service.chatbotId;
    e.service.context.chatbots.update(chatbot, {
      settings: { RateLimitCount: 1, RateLimitTime: 3600, RateLimitMessage: limitMessage },
    });
    try {
      const q = 'Homes for sale in Seattle? (rate limit)';
      const root = await ask('C0FRATE', q);
      // The first question is within the limit: answered, not refused.
      const first = answerText((await waitForAnswer(e, 'C0FRATE', root.ts, q)).messages);
      expect(first).toContain('homes for sale in Seattle');
      const before = proxy.asks().length;
      const follow = 'And in Tacoma? (over the limit)';
      await e.driver.event({
        type: 'message',
        channel: 'C0FRATE',
        channel_type: 'channel',
        user: 'U0USER1',
        text: follow,
        ts: `${Math.floor(Date.now() / 1000)}.200001`,
        thread_ts: root.ts,
      });
      const msgs = await settled('C0FRATE', root, (m) => m.text.includes(limitMessage));
      const told = msgs.find((m) => m.text.includes(limitMessage))!;
      expect(told.text).toBe(limitMessage);
      // Exactly one ClientAsk for the refused question: the refusal is final, not retried.
      await e.app.bridge.conversations.idle();
      expect(proxy.asks().length - before).toBe(1);
      expect(e.storedAnswers(follow)).toHaveLength(0);
    } finally {
      e.service.context.chatbots.update(chatbot, { settings: { RateLimitCount: 0 } });
    }
  });

  test('the monthly message cap is shown word for word and not retried', async () => {
    const { e, proxy } = started;
    const chatbot = e.service.chatbotId;
    e.service.context.chatbots.update(chatbot, { settings: { MessageLimit: 0 } });
    try {
      const before = proxy.asks().length;
      const q = 'Anything in Boston? (monthly cap)';
      const root = await ask('C0FCAP', q);
      const msgs = await settled('C0FCAP', root, (m) => /monthly message limit/i.test(m.text));
      const told = msgs.find((m) => /monthly message limit/i.test(m.text))!;
      expect(told.text).toBe(
        `The monthly message limit of chatbot ${chatbot} is reached (MessageLimit 0 messages per calendar month).`,
      );
      await e.app.bridge.conversations.idle();
      expect(proxy.asks().length - before).toBe(1);
    } finally {
      e.service.context.chatbots.update(chatbot, { settings: { MessageLimit: -1 } });
    }
  });
});
