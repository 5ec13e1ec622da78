import { startCoreHarness, type CoreHarness } from '../support/core-harness';
import { convKeys, convRefAt, conversationIdOf } from '../../src/core/conversations/model';
import { convStore } from '../support/conv-records';
import { waitFor } from '../../fakes/wait-for';

describe('durability: close and reopen the SQLite store with a new Bridge', () => {
  let h: CoreHarness;
  afterAll(async () => {
    await h.close();
  });

  it('keeps the thread on its session and the open ticket open and claimable', async () => {
    h = await startCoreHarness();
    expect(h.storePath).not.toBe(':memory:');
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Austin?');
    const thread = h.surface.calls.find((c) => c.op === 'startThread')!.place!;
    await waitFor(
      () => h.surface.messagesIn(thread).some((m) => m.current.buttons?.some((b) => b.action === 'handoff.request')),
      'h.surface.messagesIn(thread).some((m) => m.current.buttons?.some((b...',
      10_000,
    );
    const convId = conversationIdOf(thread);
    const sessionBefore = await convStore(h.store, thread).get(convKeys.session(convId));
    expect(typeof sessionBefore).toBe('number');

    // A second conversation with an open ticket.
    await h.bridge.command(h.invocation(h.users.bob), 'ask', 'Which homes are for rent in Denver?');
    const bobThread = h.surface.calls.filter((c) => c.op === 'startThread')[1]!.place!;
    await waitFor(
      () => h.surface.messagesIn(bobThread).some((m) => m.current.buttons?.some((b) => b.action === 'handoff.request')),
      'h.surface.messagesIn(bobThread).some((m) => m.current.buttons?.some...',
      10_000,
    );
    await h.bridge.command(h.invocation(h.users.bob, bobThread), 'handoff', 'Needs a person');
    const ticket = h.surface.messagesIn(h.handoffChannel)[0]!;
    const ticketId = ticket.current.buttons!.find((b) => b.action === 'handoff.claim')!.value;

    h = await h.restart();
    let getSessionCalls = 0;
    const original = h.client.getSession.bind(h.client);
    h.client.getSession = async (id: string) => {
      getSessionCalls++;
      return original(id);
    };

    const before = h.surface.messagesIn(thread).length;
    await h.say(h.users.alice, thread, 'Any for rent in Austin?');
    await waitFor(
      () =>
        h.surface
          .messagesIn(thread)
          .slice(before)
          .some((m) => m.current.buttons?.some((b) => b.action === 'handoff.request')),
      'h.surface.messagesIn(thread).slice(before).some((m) => m.current.bu...',
      10_000,
    );
    expect(getSessionCalls).toBe(0);
    expect(await convStore(h.store, thread).get(convKeys.session(convId))).toBe(sessionBefore);

    const open = await h.bridge.handoffs.activeTicket(convRefAt(bobThread));
    expect(open?.id).toBe(ticketId);
    expect(open?.status).toBe('open');
    const inv = h.invocation(h.agents.ann, h.handoffChannel, { source: ticket.ref });
    await h.bridge.action(inv, 'handoff.claim', ticketId);
    expect(inv.replies).toEqual([]);
    expect(h.surface.messagesIn(h.handoffChannel)[0]!.current.text).toContain('Claimed by Ann Agent');
    const ticketThread = h.surface.calls.filter(
      (c) => c.op === 'startThread' && c.place?.channel === h.handoffChannel.channel,
    )[0]!.place!;
    await h.say(h.users.bob, bobThread, 'still there?');
    await waitFor(
      () => h.surface.messagesIn(ticketThread).some((m) => m.current.text === '*Bob:* still there?'),
      "h.surface.messagesIn(ticketThread).some((m) => m.current.text === '...",
      5000,
    );
  });
});
