/**
 * An upgrade from the layout before tenants had their own part of the store loses nothing: a store
 * written by the version before (every record of a conversation a global key: its record, its session
 * mapping, a queued message, its pending mark, a dedupe mark) is read by a bridge of this version:
 * the queued message is answered, in the same chat session, the records move into the tenant's part,
 * and a message seen before the upgrade is not answered again when the platform redelivers it.
 */
import { conversationIdOf, convKeys, legacyKeys, toJson } from '../../../src/core/conversations/model';
import type { Place } from '../../../src/core/surface';
import { waitFor } from '../../../fakes/wait-for';
import { HARNESS_WORKSPACE, startCoreHarness } from '../../support/core-harness';
import { convStore } from '../../support/conv-records';
import { useStarted } from '../../support/server-setup';

describe('conversations: records from before the tenants’ parts (an upgrade)', () => {
  const h = useStarted(() => startCoreHarness({ start: false, serviceOptions: { fragmentDelayMs: 1 } }));

  it('reuses the stored session, answers the queued item and moves the records into the tenant’s part', async () => {
    const thread: Place = { ...h.channel, workspace: HARNESS_WORKSPACE, thread: 'T-before-upgrade' };
    const id = conversationIdOf(thread);
    // The conversation as the version before kept it, mid-way: one question answered in its session,
    // a follow-up queued (its instance stopped before answering it), and one message already seen.
    const session = await h.client.getSession(h.config.chatbotId);
    await h.client.ask({ sessionId: session, content: 'Which homes are for sale in Austin?' });
    await h.store.set(legacyKeys.conversation(id), toJson({ id, place: thread, createdAt: 1, asker: h.users.alice }));
    await h.store.set(legacyKeys.session(id), session);
    await h.store.set(legacyKeys.sessionChatbot(id), h.config.chatbotId);
    await h.store.push(
      legacyKeys.queue(id),
      toJson({
        kind: 'message',
        msgId: 'm-queued',
        actor: h.users.alice,
        text: 'Any for rent in Austin?',
        attachments: [],
      }),
    );
    await h.store.set(`convpending:${id}`, 1);
    await h.store.set(legacyKeys.seen(thread, 'm-seen'), 1);
    let getSessionCalls = 0;
    const original = h.client.getSession.bind(h.client);
    h.client.getSession = async (chatbotId: string) => {
      getSessionCalls++;
      return original(chatbotId);
    };

    h.bridge.start();
    const answer = await waitFor(
      () => h.surface.messagesIn(thread).find((m) => !m.current.typing && m.current.text.includes('Austin')),
      'the queued item answered',
      10_000,
    );
    await h.bridge.conversations.idle();

    // Answered in the session the mapping named: the service holds both questions in it.
    expect(answer.current.text).not.toBe('Thinking…');
    expect(getSessionCalls).toBe(0);
    const conversation = await h.client.v1.getConversation(String(session), { includeMessages: true });
    expect((conversation.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'Which homes are for sale in Austin?',
      'Any for rent in Austin?',
    ]);
    // The records are in the tenant's part now; the old keys are gone, the old queue empty.
    const view = convStore(h.store, thread);
    expect(await view.get(convKeys.session(id))).toBe(session);
    expect(await view.get(convKeys.conversation(id))).toMatchObject({ asker: { id: h.users.alice.id } });
    expect(await h.store.get(legacyKeys.conversation(id))).toBeUndefined();
    expect(await h.store.get(legacyKeys.session(id))).toBeUndefined();
    expect(await h.store.length(legacyKeys.queue(id))).toBe(0);
    expect(await h.store.get(`convpending:${id}`)).toBeUndefined();

    // A message seen before the upgrade, redelivered, is not answered again; a new one is, in the same session.
    const before = h.surface.messagesIn(thread).length;
    await h.say(h.users.alice, thread, 'Any with a garden?', { id: 'm-seen' });
    await h.bridge.conversations.idle();
    expect(h.surface.messagesIn(thread)).toHaveLength(before);
    await h.say(h.users.alice, thread, 'Any with a pool?', { id: 'm-new' });
    await waitFor(() => h.surface.messagesIn(thread).length > before, 'the new message answered', 10_000);
    await h.bridge.conversations.idle();
    expect(getSessionCalls).toBe(0);
  });
});
