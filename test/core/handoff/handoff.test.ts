import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { DEFAULT_TALK_TO_HUMAN } from '../../../src/core/handoff/model';
import type { Place } from '../../../src/core/surface';
import { TEST_SURFACE, type TestSurface } from '../../support/test-surface';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';

const UNANSWERABLE = 'What is the airspeed velocity of an unladen swallow?';

function settled(s: TestSurface, place: Place): number {
  return s.messagesIn(place).filter((m) => !m.current.typing && m.current.text !== 'Thinking…').length;
}

async function askInThread(h: CoreHarness, question: string): Promise<Place> {
  const before = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel).length;
  await h.bridge.command(h.invocation(h.users.alice), 'ask', question);
  const starts = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel);
  expect(starts.length).toBe(before + 1);
  const thread = starts[starts.length - 1]!.place!;
  await waitFor(() => settled(h.surface, thread) >= 1, 'settled(h.surface, thread) >= 1', 10_000);
  return thread;
}

function ticketThreads(s: TestSurface, handoffChannel: Place): Place[] {
  return s.calls
    .filter((c) => c.op === 'startThread' && c.place?.channel === handoffChannel.channel)
    .map((c) => c.place!);
}

describe('handoff: round trip on one surface', () => {
  const h = useStarted(() => startCoreHarness());

  it('offers a human on noAnswer, opens a ticket, one of two agents claims, relays both ways, closes, and the bot is back', async () => {
    const thread = await askInThread(h, UNANSWERABLE);
    await waitFor(() => settled(h.surface, thread) >= 2, 'settled(h.surface, thread) >= 2', 10_000);
    const [answer, offer] = h.surface.messagesIn(thread);
    const talk = answer!.current.buttons?.find((b) => b.action === 'handoff.request');
    expect(talk?.label).toBe('Talk to a human');
    expect(offer!.current.text).toMatch(/Talk to a human/);

    // The button: the user sees the handoff message, a ticket appears with Claim.
    await h.bridge.action(h.invocation(h.users.alice, thread), talk!.action, talk!.value);
    const notice = h.surface.messagesIn(thread)[2]!;
    expect(notice.current.text).toBe(DEFAULT_TALK_TO_HUMAN);
    expect(notice.current.buttons?.map((b) => b.action)).toEqual(['handoff.cancel']);
    const [ticketThread] = ticketThreads(h.surface, h.handoffChannel);
    expect(ticketThread).toBeDefined();
    const ticket = h.surface.messagesIn(h.handoffChannel)[0]!;
    expect(ticket.current.text).toContain('<@U-alice>');
    expect(ticket.current.text).toContain(UNANSWERABLE);
    expect(ticket.current.text).toContain('Talk to a human');
    // Readable: the state line first, no raw ids.
    expect(ticket.current.text.split('\n')[0]).toMatch(/^Waiting since /);
    expect(ticket.current.text).not.toContain(h.channel.channel);
    const claim = ticket.current.buttons?.find((b) => b.action === 'handoff.claim');
    expect(claim?.label).toBe('Claim');
    expect(ticket.current.buttons?.some((b) => b.action === 'handoff.close')).toBe(true);

    // Two agents click Claim at the same moment: exactly one wins, the other is told who.
    const annInv = h.invocation(h.agents.ann, h.handoffChannel, { source: ticket.ref });
    const andyInv = h.invocation(h.agents.andy, h.handoffChannel, { source: ticket.ref });
    await Promise.all([
      h.bridge.action(annInv, claim!.action, claim!.value),
      h.bridge.action(andyInv, claim!.action, claim!.value),
    ]);
    const loserInv = [annInv, andyInv].find((i) => i.replies.some((r) => /Already claimed by/.test(r.msg.text)));
    expect(loserInv).toBeDefined();
    const winner = loserInv === annInv ? h.agents.andy : h.agents.ann;
    const winnerInv = loserInv === annInv ? andyInv : annInv;
    expect(loserInv!.replies[0]!.ephemeral).toBe(true);
    expect(loserInv!.replies[0]!.msg.text).toBe(`Already claimed by ${winner.name}.`);
    expect(winnerInv.replies.filter((r) => /Already claimed/.test(r.msg.text))).toHaveLength(0);
    expect(h.surface.messagesIn(h.handoffChannel)[0]!.current.text).toContain(`Claimed by ${winner.name}`);
    expect(h.surface.messagesIn(h.handoffChannel)[0]!.current.buttons?.map((b) => b.action)).toEqual([
      'handoff.close',
      'handoff.release',
      'handoff.takeover',
    ]);

    // Relay both ways, authors named, text word for word; the bot stays silent.
    const userCount = h.surface.messagesIn(thread).length;
    await h.say(h.users.alice, thread, 'Hi! I need help with *financing* for 12 Oak St.');
    await waitFor(
      () =>
        h.surface
          .messagesIn(ticketThread!)
          .some((m) => m.current.text === '*Alice:* Hi! I need help with *financing* for 12 Oak St.'),
      'h.surface.messagesIn(ticketThread!).some((m) => m.current.text === ...',
      5000,
    );
    await h.say(winner, ticketThread!, 'Sure, I can help. What is your budget?');
    await waitFor(
      () =>
        h.surface
          .messagesIn(thread)
          .some((m) => m.current.text === `*${winner.name} (agent):* Sure, I can help. What is your budget?`),
      'h.surface.messagesIn(thread).some((m) => m.current.text === `*${win...',
      5000,
    );
    await h.bridge.conversations.idle();
    const during = h.surface
      .messagesIn(thread)
      .slice(userCount)
      .map((m) => m.current.text);
    expect(during.filter((t) => t === 'Thinking…' || t.includes('Talk to a human'))).toEqual([]);
    expect(during.every((t) => t.includes('(agent)'))).toBe(true);

    // Close hands back; both sides are told; the bot answers again.
    await h.bridge.action(
      h.invocation(winner, h.handoffChannel, { source: ticket.ref }),
      'handoff.close',
      claim!.value,
    );
    expect(h.surface.messagesIn(ticketThread!).some((m) => /closed this ticket/.test(m.current.text))).toBe(true);
    expect(h.surface.messagesIn(thread).some((m) => /closed the handoff/.test(m.current.text))).toBe(true);
    expect(h.surface.messagesIn(h.handoffChannel)[0]!.current.text.split('\n')[0]).toMatch(/^Closed by /);
    const afterClose = h.surface.messagesIn(thread).length;
    await h.say(h.users.alice, thread, 'Which homes are for sale in Austin?');
    await waitFor(
      () =>
        h.surface
          .messagesIn(thread)
          .slice(afterClose)
          .some((m) => m.current.buttons?.some((b) => b.action === 'handoff.request')),
      'h.surface.messagesIn(thread).slice(afterClose).some((m) => m.curren...',
      10_000,
    );
  });

  it('/handoff in the channel hands off the most recent conversation, and /handoff cancel gives it back', async () => {
    const thread = await askInThread(h, 'Which homes are for rent in Denver?');
    const inv = h.invocation(h.users.alice, h.channel);
    await h.bridge.command(inv, 'handoff', 'I want to negotiate the price');
    const tickets = h.surface.messagesIn(h.handoffChannel);
    const ticket = tickets[tickets.length - 1]!;
    expect(ticket.current.text).toContain('I want to negotiate the price');
    expect(h.surface.messagesIn(thread).some((m) => m.current.text === DEFAULT_TALK_TO_HUMAN)).toBe(true);

    const again = h.invocation(h.users.alice, thread);
    await h.bridge.command(again, 'handoff', 'cancel');
    expect(again.replies[0]?.msg.text).toMatch(/cancelled/);
    expect(h.surface.messagesIn(thread).some((m) => /Handoff cancelled/.test(m.current.text))).toBe(true);
    expect(h.surface.messagesIn(h.handoffChannel).slice(-1)[0]!.current.text).toMatch(/^Cancelled by Alice/);

    const nothing = h.invocation(h.users.bob, { ...h.channel, channel: 'C-empty' });
    await h.bridge.command(nothing, 'handoff', '');
    expect(nothing.replies[0]?.msg.text).toMatch(/no conversation/i);
  });

  it('shows the TalkToHumanResponseMessage the bridge last applied', async () => {
    await h.store.set(`settings:applied:${h.config.chatbotId}`, {
      TalkToHumanResponseMessage: 'An agent from Acme Realty will be right with you.',
    });
    const thread = await askInThread(h, 'Which homes are for sale in Miami?');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', '');
    expect(
      h.surface.messagesIn(thread).some((m) => m.current.text === 'An agent from Acme Realty will be right with you.'),
    ).toBe(true);
    await h.store.delete(`settings:applied:${h.config.chatbotId}`);
  });
});

describe('handoff: automatic on noAnswer, claim timeout', () => {
  const h = useStarted(() => startCoreHarness({ handoffOnNoAnswer: true, handoffClaimTimeoutMs: 150 }));

  it('hands off by itself, then tells the user once that nobody has claimed it; the ticket stays open', async () => {
    const thread = await askInThread(h, UNANSWERABLE);
    await waitFor(
      () => h.surface.messagesIn(h.handoffChannel).length === 1,
      'h.surface.messagesIn(h.handoffChannel).length === 1',
      10_000,
    );
    expect(h.surface.messagesIn(thread).some((m) => m.current.text === DEFAULT_TALK_TO_HUMAN)).toBe(true);
    await waitFor(
      () => h.surface.messagesIn(thread).some((m) => /No one has picked up your request yet/.test(m.current.text)),
      'h.surface.messagesIn(thread).some((m) => /No one has picked up your...',
      5000,
    );
    await h.bridge.handoffs.sweepUnclaimed();
    await h.bridge.handoffs.sweepUnclaimed();
    expect(h.surface.messagesIn(thread).filter((m) => /No one has picked up/.test(m.current.text))).toHaveLength(1);
    const ticket = h.surface.messagesIn(h.handoffChannel)[0]!;
    expect(ticket.current.buttons?.some((b) => b.action === 'handoff.claim')).toBe(true);
    const inv = h.invocation(h.agents.ann, h.handoffChannel);
    await h.bridge.action(inv, 'handoff.claim', ticket.current.buttons![0]!.value);
    expect(inv.replies).toEqual([]);
    expect(h.surface.messagesIn(thread).some((m) => /Ann Agent \(agent\) has joined/.test(m.current.text))).toBe(true);
  });
});

describe('handoff: ticket on another surface', () => {
  const h = useStarted(() => startCoreHarness({ handoffOn: 'other' }));

  it("puts the ticket in the other surface's handoff channel and relays across surfaces", async () => {
    const thread = await askInThread(h, 'Which homes are for sale in Seattle?');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'Wants a viewing');
    expect(h.surface.messagesIn(h.handoffChannel)).toHaveLength(0);
    const ticket = h.handoffSurface.messagesIn(h.handoffChannel)[0]!;
    expect(ticket.ref.place.surface).toBe('discord');
    expect(ticket.current.text).toContain(`Alice (${TEST_SURFACE} user)`);
    expect(ticket.current.text).toContain('Wants a viewing');
    const [ticketThread] = ticketThreads(h.handoffSurface, h.handoffChannel);

    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel),
      'handoff.claim',
      ticket.current.buttons![0]!.value,
    );
    await h.say(h.agents.ann, ticketThread!, 'Hello from the other side', { surface: h.handoffPort });
    await waitFor(
      () =>
        h.surface.messagesIn(thread).some((m) => m.current.text === '*Ann Agent (agent):* Hello from the other side'),
      "h.surface.messagesIn(thread).some((m) => m.current.text === '*Ann A...",
      5000,
    );
    await h.say(h.users.alice, thread, 'Great, thanks');
    await waitFor(
      () => h.handoffSurface.messagesIn(ticketThread!).some((m) => m.current.text === '*Alice:* Great, thanks'),
      'h.handoffSurface.messagesIn(ticketThread!).some((m) => m.current.te...',
      5000,
    );
  });
});
