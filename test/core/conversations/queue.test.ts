import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import {
  conversationIdOf,
  convKeys,
  infraKeys,
  parseStored,
  startedMarkSchema,
  toJson,
  type StartedMark,
} from '../../../src/core/conversations/model';
import { PENDING_INDEX } from '../../../src/core/conversations/worker';
import type { RelayRequest } from '../../../src/core/relay/relay';
import type { Place } from '../../../src/core/surface';
import type { TestMessage } from '../../support/test-surface';
import { waitFor } from '../../../fakes/wait-for';
import { convStore } from '../../support/conv-records';

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
    await waitFor(
      () =>
        h.surface
          .messagesIn(thread)
          .some((m) => m.current.typing === true && m.current.text.length > 0 && m.current.text !== 'Thinking…'),
      'part of the first answer shown, still streaming',
      5000,
      h.surface.changes,
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
    const convId = conversationIdOf(thread);
    expect(await convStore(h.store, thread).length(convKeys.queue(convId))).toBe(0);
    // The last ack ended the queue's work in its step: no pending mark, no due entry, the lease let go.
    await h.bridge.conversations.idle();
    expect(await h.store.get(infraKeys.pending(convId))).toBeUndefined();
    expect((await h.store.due(PENDING_INDEX, Number.MAX_SAFE_INTEGER, 1000)).map((e) => e.member)).not.toContain(
      convId,
    );
    expect(await h.store.leaseInfo(infraKeys.lease(convId))).toBeUndefined();
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

  describe('an item taken over from a dead worker', () => {
    /** A finished thread, then a queue item as a dead worker left it: started (with `mark`), never acked. */
    async function leftByDeadWorker(
      question: string,
      mark: (placeholderId: string) => StartedMark,
    ): Promise<{ thread: Place; placeholder: string; convId: string }> {
      const thread = await newThread(question);
      await waitFor(() => h.surface.messagesIn(thread).filter(finished).length >= 1, 'the first answer', 10_000);
      await h.bridge.conversations.idle();
      const convId = conversationIdOf(thread);
      // The message the dead worker answered into; recovery has since marked it interrupted.
      const placeholder = await h.surface.post(thread, { text: 'Homes for rent in Miami: 12 Ocean', typing: false });
      const view = convStore(h.store, thread);
      const item = await view.push(
        convKeys.queue(convId),
        toJson({
          kind: 'message',
          msgId: `dead-${placeholder.id}`,
          actor: h.users.alice,
          text: 'Any for rent in Miami?',
          attachments: [],
        }),
      );
      await view.set(convKeys.started(convId, item.id), toJson(mark(placeholder.id)));
      await h.store.set(infraKeys.pending(convId), toJson(view.tenant));
      await h.store.schedule(PENDING_INDEX, convId, 0);
      return { thread, placeholder: placeholder.id, convId };
    }

    it('notes the answer key in the started mark before the relay gets the answer', async () => {
      const seen: Array<{ answerKey: string; marks: Array<StartedMark | undefined> }> = [];
      const original = h.relay.run.bind(h.relay);
      h.relay.run = async (req: RelayRequest) => {
        const convId = req.answerKey.split(':')[0]!;
        const view = convStore(h.store, h.channel);
        const startedKeys = await view.keys(convKeys.started(convId, ''));
        const marks = await Promise.all(
          startedKeys.map(async (k) => parseStored(startedMarkSchema, await view.get(k))),
        );
        seen.push({ answerKey: req.answerKey, marks });
        return original(req);
      };
      try {
        const thread = await newThread('Which homes are for sale in Austin?');
        await waitFor(() => h.surface.messagesIn(thread).filter(finished).length >= 1, 'the answer', 10_000);
        await h.bridge.conversations.idle();
      } finally {
        h.relay.run = original;
      }
      expect(seen).toHaveLength(1);
      const open = seen[0]!.marks.filter((m) => m && !m.done);
      expect(open).toHaveLength(1);
      expect(open[0]!.answerKey).toBe(seen[0]!.answerKey);
    });

    it('leaves an item the relay was given to recovery: its marked message is not answered again', async () => {
      const { thread, placeholder, convId } = await leftByDeadWorker('Which homes are for sale in Seattle?', (id) => ({
        owner: 'dead-worker',
        done: false,
        placeholder: { place: h.surface.messages.get(id)!.ref.place, id },
        answerKey: 'dead-conv:retry-id:gone', // its in-flight record already deleted by recovery
      }));
      const before = h.surface.messages.get(placeholder)!.versions.length;
      // The next message wakes the queue: the left item first, then this one.
      await h.say(h.users.alice, thread, 'Any for rent in Denver?');
      await waitFor(
        () => h.surface.messagesIn(thread).some((m) => finished(m) && m.current.text.includes('Denver')),
        'the next message answered',
        10_000,
      );
      await h.bridge.conversations.idle();
      expect(h.surface.messages.get(placeholder)!.versions).toHaveLength(before);
      expect(h.surface.messagesIn(thread).filter((m) => m.current.text.includes('Miami'))).toHaveLength(1);
      expect(await convStore(h.store, thread).length(convKeys.queue(convId))).toBe(0);
    });

    it('answers again, in its placeholder, an item lost before the relay was given it', async () => {
      const { thread, placeholder, convId } = await leftByDeadWorker('Which homes are for sale in Denver?', (id) => ({
        owner: 'dead-worker',
        done: false,
        placeholder: { place: h.surface.messages.get(id)!.ref.place, id },
      }));
      await h.say(h.users.alice, thread, 'Any for rent in Austin?');
      await waitFor(
        () => h.surface.messagesIn(thread).some((m) => finished(m) && m.current.text.includes('Austin')),
        'the next message answered',
        10_000,
      );
      await h.bridge.conversations.idle();
      const answered = h.surface.messages.get(placeholder)!;
      expect(answered.versions.length).toBeGreaterThan(1);
      expect(answered.current.text).not.toBe('Homes for rent in Miami: 12 Ocean');
      expect(answered.current.text).toContain('Miami');
      expect(await convStore(h.store, thread).length(convKeys.queue(convId))).toBe(0);
    });
  });
});
