import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { conversationIdOf, keys } from '../../../src/core/conversations/model';
import type { Place } from '../../../src/core/surface';
import type { TestMessage } from '../../support/test-surface';
import { waitFor } from '../../support/wait-for';

function finished(m: TestMessage): boolean {
  return !m.current.typing && m.current.text !== 'Thinking…';
}

describe('conversations: queue order, dedupe, service refusals', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    // Slow fragments, so that messages arrive while an answer is still streaming.
    h = await startCoreHarness({ serviceOptions: { fragmentDelayMs: 15 } });
  });
  afterAll(async () => {
    await h.close();
  });

  async function newThread(question: string): Promise<Place> {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', question);
    const starts = h.surface.calls.filter((c) => c.op === 'startThread');
    return starts[starts.length - 1]!.place!;
  }

  it('answers three messages sent during a stream one after another, in order', async () => {
    const thread = await newThread('Which homes are for sale in Seattle?');
    await h.surface.waitFor(() =>
      h.surface
        .messagesIn(thread)
        .some((m) => m.current.typing === true && m.current.text.length > 0 && m.current.text !== 'Thinking…'),
    );
    const cities = ['Austin', 'Denver', 'Miami'];
    for (const city of cities) await h.say(h.users.alice, thread, `Which homes are for rent in ${city}?`);

    await waitFor(
      () => h.surface.messagesIn(thread).filter(finished).length >= 4,
      'h.surface.messagesIn(thread).filter(finished).length >= 4',
      20_000,
    );
    const answers = h.surface.messagesIn(thread);
    expect(answers).toHaveLength(4);
    cities.forEach((city, i) => expect(answers[i + 1]!.current.text).toContain(city));
    // One after another: each answer's placeholder went up only after the previous answer was final.
    for (let i = 1; i < answers.length; i++) {
      const postedAt = h.surface.calls.findIndex((c) => c.op === 'post' && c.ref?.id === answers[i]!.ref.id);
      const prevFinal = h.surface.calls.findIndex(
        (c) =>
          c.op === 'edit' &&
          c.ref?.id === answers[i - 1]!.ref.id &&
          c.msg?.typing !== true &&
          c.msg?.text !== 'Thinking…',
      );
      expect(prevFinal).toBeGreaterThanOrEqual(0);
      expect(postedAt).toBeGreaterThan(prevFinal);
    }
    expect(await h.store.length(keys.queue(conversationIdOf(thread)))).toBe(0);
  });

  it('answers a redelivered message once', async () => {
    const thread = await newThread('Which homes are for sale in Denver?');
    await waitFor(
      () => h.surface.messagesIn(thread).filter(finished).length >= 1,
      'h.surface.messagesIn(thread).filter(finished).length >= 1',
      10_000,
    );
    await Promise.all([
      h.say(h.users.alice, thread, 'Any for rent in Miami?', { id: 'dup-1' }),
      h.say(h.users.alice, thread, 'Any for rent in Miami?', { id: 'dup-1' }),
    ]);
    await h.say(h.users.alice, thread, 'Any for rent in Austin?', { id: 'dup-2' });
    await h.say(h.users.alice, thread, 'Any for rent in Miami?', { id: 'dup-1' });
    await waitFor(
      () => h.surface.messagesIn(thread).filter(finished).length >= 3,
      'h.surface.messagesIn(thread).filter(finished).length >= 3',
      10_000,
    );
    await h.bridge.conversations.idle();
    const texts = h.surface.messagesIn(thread).map((m) => m.current.text);
    expect(texts).toHaveLength(3);
    expect(texts[1]).toContain('Miami');
    expect(texts[2]).toContain('Austin');
  });

  it("shows the service's rate-limit message word for word, without retrying", async () => {
    const limitMessage = 'Easy there! This assistant takes 1 question per hour per chat.';
    await h.client.editChatbot({
      serialNumber: h.config.chatbotId,
      RateLimitCount: 1,
      RateLimitTime: 3600,
      RateLimitMessage: limitMessage,
    });
    try {
      const thread = await newThread('Which homes are for sale in Miami?');
      await waitFor(
        () => h.surface.messagesIn(thread).filter(finished).length >= 1,
        'h.surface.messagesIn(thread).filter(finished).length >= 1',
        10_000,
      );
      await h.say(h.users.alice, thread, 'And in Austin?');
      await waitFor(
        () => h.surface.messagesIn(thread).filter(finished).length >= 2,
        'h.surface.messagesIn(thread).filter(finished).length >= 2',
        10_000,
      );
      await h.bridge.conversations.idle();
      const last = h.surface.messagesIn(thread)[1]!;
      expect(last.current.text).toBe(limitMessage);
      expect(last.current.buttons ?? []).toEqual([]);
      expect(h.surface.messagesIn(thread)).toHaveLength(2);
    } finally {
      await h.client.editChatbot({ serialNumber: h.config.chatbotId, RateLimitCount: 0, RateLimitTime: 0 });
    }
  });
});
