/**
 * Opening a ticket through the notice outbox: the ticket and its opening notices (the user's notice,
 * the ticket message, the removal of "Talk to a human") are written in one step and posted after.
 * While the ticket message is not posted yet (its post failed, or the process died before it), what
 * needs it waits for it: a user's message for the ticket thread, the thread lines and the ticket
 * message edits of a later change. The drains here are called by hand (no timers), so "not yet" is
 * observable.
 */
import { tenantOf } from '../../../src/core/tenants/tenant';
import { convKeys } from '../../../src/core/conversations/model';
import { convView } from '../../../src/core/conversations/records';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { handoffFigures } from '../../../src/core/handoff/figures';
import { DEFAULT_TALK_TO_HUMAN, type Ticket, ticketConv, ticketKeys } from '../../../src/core/handoff/model';
import { NOTICE_BOX } from '../../../src/core/handoff/notice';
import type { MessageRef, OutMessage, Place } from '../../../src/core/surface';
import { waitFor } from '../../../fakes/wait-for';

describe('handoff: a ticket opened through the outbox', () => {
  let h: CoreHarness;
  /** Ticket message posts in the handoff channel fail while this is set (as a platform outage would). */
  let outage = false;
  beforeAll(async () => {
    h = await startCoreHarness({ start: false });
    const real = h.surface.startThread.bind(h.surface);
    h.surface.startThread = async (place: Place, root: OutMessage, title: string) => {
      if (outage && place.channel === h.handoffChannel.channel) throw new Error('channel_unreachable');
      return real(place, root, title);
    };
  });
  afterAll(async () => {
    await h.close();
  });

  const ask = async (question: string): Promise<Place> => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', question);
    const starts = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel);
    const thread = starts[starts.length - 1]!.place!;
    await waitFor(
      () => h.surface.messagesIn(thread).some((m) => !m.current.typing && m.current.text !== 'Thinking…'),
      'the answer',
      10_000,
    );
    return thread;
  };
  const tickets = (): Array<{ ref: MessageRef; current: OutMessage }> => h.surface.messagesIn(h.handoffChannel);
  const pending = async (): Promise<number> => (await h.store.pendingIntents(NOTICE_BOX, 100)).length;

  it('a ticket whose message could not be posted yet: a user message waits for it; once posted, the ticket records it and a claim edits it', async () => {
    const thread = await ask('Which homes are for sale in Austin?');
    const before = tickets().length;
    outage = true;
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'I want a viewing');
    // The user's notice went out; the ticket message did not, and stays owed.
    expect(h.surface.messagesIn(thread).filter((m) => m.current.text === DEFAULT_TALK_TO_HUMAN)).toHaveLength(1);
    expect(tickets()).toHaveLength(before);
    const ticketId = ticketOf(thread);
    const ticket = await h.bridge.handoffs.load(ticketId);
    expect(ticket?.status).toBe('open');
    expect(ticket?.root).toBeUndefined();
    expect(ticket?.userNotice).toBeDefined();
    expect(await pending()).toBeGreaterThanOrEqual(1);

    // The user writes meanwhile: the message is kept for the ticket thread, not lost.
    await h.say(h.users.alice, thread, 'Saturday morning works for me');
    await waitFor(
      async () =>
        (await h.store.pendingIntents(NOTICE_BOX, 100)).some((i) => (i.value as { kind?: string }).kind === 'toThread'),
      'the user message kept for the ticket thread',
      10_000,
    );
    expect(tickets()).toHaveLength(before);

    // The channel is back: the next drain posts the ticket message, then the user's message in its thread.
    outage = false;
    await h.bridge.handoffs.drain();
    expect(tickets()).toHaveLength(before + 1);
    const posted = tickets()[before]!;
    expect(posted.current.text.split('\n')[0]).toMatch(/^Waiting since/);
    const ticketThread: Place = { ...h.handoffChannel, thread: lastTicketThread() };
    expect(h.surface.messagesIn(ticketThread).map((m) => m.current.text)).toEqual([
      expect.stringContaining('Saturday morning works for me'),
    ]);
    expect(await pending()).toBe(0);
    const stored = await h.bridge.handoffs.load(ticketId);
    expect(stored?.root).toEqual(posted.ref);
    expect(stored?.thread).toEqual(ticketThread);

    // A claim edits that message (found through the ticket), and its line goes to that thread.
    const claim = posted.current.buttons!.find((b) => b.action === 'handoff.claim')!;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { source: posted.ref }),
      claim.action,
      claim.value,
    );
    expect(tickets()[before]!.current.text.split('\n')[0]).toMatch(/^Claimed by Ann/);
    expect(h.surface.messagesIn(ticketThread).filter((m) => /claimed this ticket/.test(m.current.text))).toHaveLength(
      1,
    );
    // Nothing posted twice by a later drain.
    await h.bridge.handoffs.drain();
    expect(tickets()).toHaveLength(before + 1);
    expect(h.surface.messagesIn(thread).filter((m) => m.current.text === DEFAULT_TALK_TO_HUMAN)).toHaveLength(1);
  });

  it('a ticket message that can never be posted: the ticket is called off, the user told, the Cancel button removed', async () => {
    const thread = await ask('Which homes are for rent in Denver?');
    const before = tickets().length;
    outage = true;
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'call me');
    const ticketId = ticketOf(thread);
    const convId = ticketConv((await h.bridge.handoffs.load(ticketId))!);
    expect(await h.bridge.handoffs.activeTicket(convId)).toBeDefined();
    // The first try was inline; the drains retry until the notice is given up.
    for (let i = 0; i < 10 && (await h.bridge.handoffs.activeTicket(convId)); i++) {
      await h.bridge.handoffs.drain();
    }
    expect(await h.bridge.handoffs.activeTicket(convId)).toBeUndefined();
    expect((await h.bridge.handoffs.load(ticketId))?.status).toBe('cancelled');
    expect(tickets()).toHaveLength(before);
    const texts = h.surface.messagesIn(thread).map((m) => m.current.text);
    expect(texts.filter((t) => /could not reach the handoff channel/.test(t))).toHaveLength(1);
    const notice = h.surface.messagesIn(thread).find((m) => m.current.text.startsWith(DEFAULT_TALK_TO_HUMAN))!;
    expect(notice.current.buttons ?? []).toEqual([]);
    expect(notice.current.text).toMatch(/\(Handoff cancelled\.\)/);
    expect(await pending()).toBe(0);
    outage = false;
  });

  it('a ticket cancelled before its message went out: the message, when posted, shows the end, and its thread line follows it', async () => {
    const thread = await ask('Which condos are for sale in Miami?');
    const before = tickets().length;
    outage = true;
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'a question about fees');
    const ticketId = ticketOf(thread);
    await h.bridge.action(h.invocation(h.users.alice, thread), 'handoff.cancel', ticketId);
    expect((await h.bridge.handoffs.load(ticketId))?.status).toBe('cancelled');
    expect(
      h.surface.messagesIn(thread).filter((m) => /Handoff cancelled\. I'm back/.test(m.current.text)),
    ).toHaveLength(1);
    // The ticket message, its thread line and its edit are still owed.
    expect(tickets()).toHaveLength(before);
    expect(await pending()).toBeGreaterThanOrEqual(3);

    outage = false;
    await h.bridge.handoffs.drain();
    expect(tickets()).toHaveLength(before + 1);
    expect(tickets()[before]!.current.text.split('\n')[0]).toMatch(/^Cancelled by Alice/);
    const ticketThread: Place = { ...h.handoffChannel, thread: lastTicketThread() };
    expect(h.surface.messagesIn(ticketThread).map((m) => m.current.text)).toEqual([
      expect.stringMatching(/cancelled the request/),
    ]);
    expect(await pending()).toBe(0);
  });

  it('a handoff mark left behind (by an ended or a vanished ticket) does not block a new ticket', async () => {
    const thread = await ask('Which homes are for sale in Tulsa?');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'first');
    const first = ticketOf(thread);
    const convId = ticketConv((await h.bridge.handoffs.load(first))!);
    await h.bridge.action(h.invocation(h.users.alice, thread), 'handoff.cancel', first);
    // As a crash right after the cancel would leave it: the mark still names the ended ticket.
    await convView(h.store, convId).set(convKeys.handoff(convId.id), first);
    const before = tickets().length;
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'second');
    expect(tickets()).toHaveLength(before + 1);
    const second = (await h.bridge.handoffs.activeTicket(convId))!;
    expect(second.id).not.toBe(first);
    expect(second.reason).toBe('second');
    // A mark naming a ticket that no longer exists (expired) does not block either.
    await h.bridge.action(h.invocation(h.users.alice, thread), 'handoff.cancel', second.id);
    await convView(h.store, convId).set(convKeys.handoff(convId.id), 'vanished');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'third');
    expect(tickets()).toHaveLength(before + 2);
    expect((await h.bridge.handoffs.activeTicket(convId))?.reason).toBe('third');
  });

  it('a ticket stranded by a crash before it was handed its conversation is no handoff: the figures skip it', async () => {
    const day = new Date(h.ctx.now()).toISOString().slice(0, 10);
    const counted = async (): Promise<number> =>
      (await handoffFigures(h.ctx, tenantOf(h.channel), { from: day, to: day })).opened;
    const before = await counted();
    // A handed ticket counts (and is no longer marked as opening).
    const thread = await ask('Which lots are for sale in Boise?');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'land');
    expect((await h.bridge.handoffs.load(ticketOf(thread)))?.opening).toBeUndefined();
    expect(await counted()).toBe(before + 1);
    // What the first step of an opening leaves when the process dies right after it.
    const stranded: Ticket = {
      ...(await h.bridge.handoffs.load(ticketOf(thread)))!,
      id: 'stranded1',
      status: 'open',
      opening: true,
    };
    await h.store.set(ticketKeys.ticket(stranded.id), JSON.parse(JSON.stringify(stranded)), 60_000);
    expect(await counted()).toBe(before + 1);
    expect((await h.bridge.handoffs.allTickets()).some((t) => t.id === stranded.id)).toBe(false);
  });

  /** The ticket of the user's notice in `thread` (its Cancel button names it). */
  function ticketOf(thread: Place): string {
    const notice = h.surface.messagesIn(thread).find((m) => m.current.text === DEFAULT_TALK_TO_HUMAN)!;
    return notice.current.buttons!.find((b) => b.action === 'handoff.cancel')!.value;
  }

  function lastTicketThread(): string {
    const starts = h.surface.calls.filter(
      (c) => c.op === 'startThread' && c.place?.channel === h.handoffChannel.channel,
    );
    return starts[starts.length - 1]!.place!.thread!;
  }
});

describe('handoff: a ticket opened through the outbox, across surfaces', () => {
  let h: CoreHarness;
  let outage = false;
  beforeAll(async () => {
    h = await startCoreHarness({ start: false, handoffOn: 'other' });
    const real = h.handoffSurface.startThread.bind(h.handoffSurface);
    h.handoffSurface.startThread = async (place: Place, root: OutMessage, title: string) => {
      if (outage) throw new Error('channel_unreachable');
      return real(place, root, title);
    };
  });
  afterAll(async () => {
    await h.close();
  });

  it("the other surface's ticket message, owed across a failure, is posted once, recorded, claimed, and relays both ways", async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Seattle?');
    const starts = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel);
    const thread = starts[starts.length - 1]!.place!;
    outage = true;
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'Wants a viewing');
    const notice = await waitFor(
      () => h.surface.messagesIn(thread).find((m) => m.current.text === DEFAULT_TALK_TO_HUMAN),
      'the user notice',
      5000,
    );
    expect(h.handoffSurface.messagesIn(h.handoffChannel)).toHaveLength(0);
    outage = false;
    await h.bridge.handoffs.drain();
    await h.bridge.handoffs.drain();
    const tickets = h.handoffSurface.messagesIn(h.handoffChannel);
    expect(tickets).toHaveLength(1);
    const ticket = tickets[0]!;
    expect(ticket.ref.place.surface).toBe('discord');
    const ticketId = notice.current.buttons!.find((b) => b.action === 'handoff.cancel')!.value;
    const stored = (await h.bridge.handoffs.load(ticketId))!;
    expect(stored.root).toEqual(ticket.ref);
    const ticketThread = stored.thread!;
    expect(ticketThread.surface).toBe('discord');

    const claim = ticket.current.buttons!.find((b) => b.action === 'handoff.claim')!;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { surface: h.handoffPort, source: ticket.ref }),
      claim.action,
      claim.value,
    );
    expect(h.handoffSurface.messagesIn(h.handoffChannel)[0]!.current.text.split('\n')[0]).toMatch(/^Claimed by Ann/);
    await h.say(h.agents.ann, ticketThread, 'Hello from the other side', { surface: h.handoffPort });
    await waitFor(
      () =>
        h.surface.messagesIn(thread).some((m) => m.current.text === '*Ann Agent (agent):* Hello from the other side'),
      'the agent reply in the user thread',
      5000,
    );
    await h.say(h.users.alice, thread, 'Great, thanks');
    await waitFor(
      () => h.handoffSurface.messagesIn(ticketThread).some((m) => m.current.text === '*Alice:* Great, thanks'),
      'the user reply in the ticket thread',
      5000,
    );
  });
});
