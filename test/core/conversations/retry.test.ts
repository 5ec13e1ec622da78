import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { conversationIdOf, convKeys } from '../../../src/core/conversations/model';
import { convStore } from '../../support/conv-records';
import { waitFor } from '../../../fakes/wait-for';

describe('conversations: an interrupted answer and its Retry', () => {
  let h: CoreHarness;
  let getSessionCalls = 0;
  beforeAll(async () => {
    // Fragments slower than the idle timeout: every answer is interrupted, so Retry is offered.
    h = await startCoreHarness({ serviceOptions: { fragmentDelayMs: 400 }, answerIdleTimeoutMs: 120 });
    const original = h.client.getSession.bind(h.client);
    h.client.getSession = async (id: string) => {
      getSessionCalls++;
      return original(id);
    };
  });
  afterAll(async () => {
    await h.close();
  });

  it('marks the answer interrupted with Retry, and Retry asks the same question in the same thread and session', async () => {
    const question = 'Which homes are for sale in Austin?';
    await h.bridge.command(h.invocation(h.users.alice), 'ask', question);
    const thread = h.surface.calls.find((c) => c.op === 'startThread')!.place!;
    const retryOf = (i: number) => h.surface.messagesIn(thread)[i]?.current.buttons?.find((b) => b.label === 'Retry');
    await waitFor(() => retryOf(0) !== undefined, 'retryOf(0) !== undefined', 10_000);
    const first = h.surface.messagesIn(thread)[0]!;
    expect(first.current.notice ?? first.current.text).toMatch(/interrupted/i);

    const button = retryOf(0)!;
    expect(button.action).toBe('answer.retry');
    await h.bridge.action(h.invocation(h.users.alice, thread), button.action, button.value);
    await waitFor(() => retryOf(1) !== undefined, 'retryOf(1) !== undefined', 10_000);
    await h.bridge.conversations.idle();

    expect(h.surface.messagesIn(thread)).toHaveLength(2);
    expect(getSessionCalls).toBe(1);
    const sessionId = await convStore(h.store, thread).get(convKeys.session(conversationIdOf(thread)));
    const conversation = await h.client.v1.getConversation(String(sessionId), { includeMessages: true });
    const asked = (conversation.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content);
    expect(asked).toEqual([question, question]);
  });

  it('Retry: only the asker or an admin; others are told who may, and nothing is asked', async () => {
    const question = 'Which homes are for sale in Denver?';
    await h.bridge.command(h.invocation(h.users.alice), 'ask', question);
    const thread = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    const retryOf = (i: number) => h.surface.messagesIn(thread)[i]?.current.buttons?.find((b) => b.label === 'Retry');
    await waitFor(() => retryOf(0) !== undefined, 'retryOf(0)', 10_000);
    await h.bridge.conversations.idle();
    const button = retryOf(0)!;

    const intruder = h.invocation(h.users.bob, thread);
    await h.bridge.action(intruder, button.action, button.value);
    expect(intruder.replies[0]?.ephemeral).toBe(true);
    expect(intruder.replies[0]?.msg.text).toMatch(/Only .*Alice.* or an admin can press Retry/i);
    await h.bridge.conversations.idle();
    expect(h.surface.messagesIn(thread)).toHaveLength(1);

    // The asker presses twice while the retry is queued or streaming: one retry only.
    const sessionId = await convStore(h.store, thread).get(convKeys.session(conversationIdOf(thread)));
    await h.bridge.action(h.invocation(h.users.alice, thread), button.action, button.value);
    await h.bridge.action(h.invocation(h.users.alice, thread), button.action, button.value);
    await waitFor(() => retryOf(1) !== undefined, 'retryOf(1)', 10_000);
    await h.bridge.conversations.idle();
    expect(h.surface.messagesIn(thread)).toHaveLength(2);
    const conversation = await h.client.v1.getConversation(String(sessionId), { includeMessages: true });
    expect((conversation.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      question,
      question,
    ]);

    // Once that retry is over the button works again, and an admin may press it too.
    await h.bridge.action(h.invocation(h.users.admin, thread), button.action, button.value);
    await waitFor(() => retryOf(2) !== undefined, 'retryOf(2)', 10_000);
    await h.bridge.conversations.idle();
    expect(h.surface.messagesIn(thread)).toHaveLength(3);
  });

  it('says so when a Retry button has expired', async () => {
    const inv = h.invocation(h.users.alice);
    await h.bridge.action(inv, 'answer.retry', 'no-such-retry');
    expect(inv.replies[0]?.msg.text).toMatch(/expired/);
  });
});
