import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { convKeys, conversationIdOf } from '../../../src/core/conversations/model';
import { convStore } from '../../support/conv-records';
import type { Place } from '../../../src/core/surface';
import { waitFor } from '../../../fakes/wait-for';

describe('conversations: /ask and follow-ups', () => {
  let h: CoreHarness;
  let getSessionCalls = 0;
  beforeAll(async () => {
    h = await startCoreHarness();
    const original = h.client.getSession.bind(h.client);
    h.client.getSession = async (id: string) => {
      getSessionCalls++;
      return original(id);
    };
  });
  afterAll(async () => {
    await h.close();
  });

  /** The texts of the thread's messages, in order (the root is in the channel, not the thread). */
  function threadTexts(thread: Place): string[] {
    return h.surface.messagesIn(thread).map((m) => m.current.text);
  }

  function lastThreadMessage(thread: Place) {
    const all = h.surface.messagesIn(thread);
    return all[all.length - 1];
  }

  async function waitAnswered(thread: Place, count: number): Promise<void> {
    await waitFor(() => {
      const done = h.surface.messagesIn(thread).filter((m) => !m.current.typing && m.current.text !== 'Thinking…');
      return done.length >= count;
    }, '{ const done = h.surface.messagesIn(thread).filter((m) => !m.curren...');
  }

  it('starts a thread naming the user and quoting the question, streams the service answer, and reuses the session', async () => {
    const question = 'Which homes are for sale in Austin?';
    const inv = h.invocation(h.users.alice);
    await h.bridge.command(inv, 'ask', question);

    const start = h.surface.calls.find((c) => c.op === 'startThread');
    expect(start?.place?.thread).toBeDefined();
    const thread = start!.place!;
    const root = h.surface.messagesIn(h.channel)[0];
    expect(root.current.text).toContain('<@U-alice>');
    expect(root.current.text).toContain(`> ${question}`);

    await waitAnswered(thread, 1);
    const expected = await h.client.ask({
      sessionId: await h.client.getSession(h.config.chatbotId),
      content: question,
    });
    getSessionCalls--; // the reference ask above is not the bridge's
    const answer = lastThreadMessage(thread);
    expect(answer.current.text).toBe(expected.content);
    expect(answer.current.buttons?.map((b) => b.action)).toContain('handoff.request');

    const convId = conversationIdOf(thread);
    const sessionId = await convStore(h.store, thread).get(convKeys.session(convId));
    expect(typeof sessionId).toBe('number');
    expect(getSessionCalls).toBe(1);

    await h.say(h.users.alice, thread, 'Any for rent in Austin?');
    await waitAnswered(thread, 2);
    expect(getSessionCalls).toBe(1);
    expect(await convStore(h.store, thread).get(convKeys.session(convId))).toBe(sessionId);
    expect(threadTexts(thread)).toHaveLength(2);
  });

  it('answers `help` and an empty question with the usage, ephemerally', async () => {
    const inv = h.invocation(h.users.alice);
    await h.bridge.command(inv, 'ask', 'help');
    await h.bridge.command(inv, 'ask', '   ');
    expect(inv.replies).toHaveLength(2);
    expect(inv.replies.every((r) => r.ephemeral && r.msg.text.includes('Usage: /ask'))).toBe(true);
  });

  it('ignores plain messages outside conversations and starts one on a mention', async () => {
    const place: Place = { ...h.channel, channel: 'C-other', thread: 'x1' };
    expect(await h.say(h.users.bob, place, 'hello there')).toBe(false);
    expect(await h.say(h.users.bob, place, 'Which homes are for rent?', { startsConversation: true })).toBe(true);
    await waitAnswered(place, 1);
    expect(h.surface.messagesIn(place)[0].current.text.length).toBeGreaterThan(0);
  });

  it('tells the user when a button has expired', async () => {
    const inv = h.invocation(h.users.alice);
    await h.bridge.action(inv, 'nothing.here', 'x');
    expect(inv.replies[0]?.ephemeral).toBe(true);
    expect(inv.replies[0]?.msg.text).toMatch(/expired/);
  });
});
