/**
 * Relays between the user's thread and the ticket thread go through the notice outbox under the
 * platform message id: a redelivered event (or a replayed queue item) is carried out once, and a
 * relay whose post failed (or whose process died) is carried out by the redelivery or the next drain,
 * never lost and never doubled. Drains are called by hand (no timers).
 */
import { DEFAULT_TALK_TO_HUMAN, ticketConv } from '../../../src/core/handoff/model';
import { NOTICE_BOX } from '../../../src/core/handoff/notice';
import { readTranscript } from '../../../src/core/conversations/transcript';
import type { MessageRef, OutMessage, Place, SendOptions } from '../../../src/core/surface';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { waitFor } from '../../../fakes/wait-for';

describe('handoff: relays through the outbox', () => {
  let h: CoreHarness;
  /** Posts in the user's thread fail while this is set (as a platform outage would). */
  let userOutage: Place | undefined;
  let thread: Place;
  let ticketThread: Place;
  let ticketId: string;

  beforeAll(async () => {
    h = await startCoreHarness({ start: false });
    const real = h.surface.post.bind(h.surface);
    h.surface.post = async (place: Place, msg: OutMessage, opts?: SendOptions): Promise<MessageRef> => {
      if (userOutage && place.thread === userOutage.thread && place.channel === userOutage.channel)
        throw new Error('service_unavailable');
      return real(place, msg, opts);
    };
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Austin?');
    const starts = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel);
    thread = starts[starts.length - 1]!.place!;
    await waitFor(
      () => h.surface.messagesIn(thread).some((m) => !m.current.typing && m.current.text !== 'Thinking…'),
      'the answer',
      10_000,
    );
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'I want a viewing');
    const notice = h.surface.messagesIn(thread).find((m) => m.current.text === DEFAULT_TALK_TO_HUMAN)!;
    ticketId = notice.current.buttons!.find((b) => b.action === 'handoff.cancel')!.value;
    const ticket = (await h.bridge.handoffs.load(ticketId))!;
    ticketThread = ticket.thread!;
    const root = h.surface.messagesIn(h.handoffChannel).find((m) => m.ref.id === ticket.root!.id)!;
    const claim = root.current.buttons!.find((b) => b.action === 'handoff.claim')!;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { source: root.ref }),
      claim.action,
      claim.value,
    );
  });
  afterAll(async () => {
    await h.close();
  });

  const inUserThread = (text: string): number =>
    h.surface.messagesIn(thread).filter((m) => m.current.text === `*Ann Agent (agent):* ${text}`).length;
  const inTicketThread = (text: string): number =>
    h.surface.messagesIn(ticketThread).filter((m) => m.current.text === `*Alice:* ${text}`).length;
  const pending = async (): Promise<number> => (await h.store.pendingIntents(NOTICE_BOX, 100)).length;

  it("an agent's message redelivered by the platform reaches the user once", async () => {
    await h.say(h.agents.ann, ticketThread, 'The house on Elm St is open Saturday', { id: 'evt-1' });
    await h.say(h.agents.ann, ticketThread, 'The house on Elm St is open Saturday', { id: 'evt-1' });
    expect(inUserThread('The house on Elm St is open Saturday')).toBe(1);
    const ticket = (await h.bridge.handoffs.load(ticketId))!;
    const turns = await readTranscript(h.store, ticketConv(ticket));
    expect(turns.filter((t) => t.text === 'The house on Elm St is open Saturday')).toHaveLength(1);
    expect(await pending()).toBe(0);
  });

  it("an agent's message whose post failed is not lost: the redelivery carries it out, once", async () => {
    userOutage = thread;
    await h.say(h.agents.ann, ticketThread, 'Bring your ID to the viewing', { id: 'evt-2' });
    expect(inUserThread('Bring your ID to the viewing')).toBe(0);
    expect(await pending()).toBe(1);
    userOutage = undefined;
    // Slack retries an event its handler failed: the same id again.
    await h.say(h.agents.ann, ticketThread, 'Bring your ID to the viewing', { id: 'evt-2' });
    expect(inUserThread('Bring your ID to the viewing')).toBe(1);
    await h.bridge.handoffs.drain();
    expect(inUserThread('Bring your ID to the viewing')).toBe(1);
    expect(await pending()).toBe(0);
  });

  it("an agent's message whose post failed and is never redelivered goes out on the next drain", async () => {
    userOutage = thread;
    await h.say(h.agents.ann, ticketThread, 'See you at 10', { id: 'evt-3' });
    expect(inUserThread('See you at 10')).toBe(0);
    userOutage = undefined;
    await h.bridge.handoffs.drain();
    expect(inUserThread('See you at 10')).toBe(1);
  });

  it("a user's message relayed again (a replayed queue item) reaches the ticket thread once", async () => {
    const ticket = (await h.bridge.handoffs.load(ticketId))!;
    await h.bridge.handoffs.relayFromUser(ticket, h.users.alice, h.surface, 'Saturday works', [], 'msg-7');
    await h.bridge.handoffs.relayFromUser(ticket, h.users.alice, h.surface, 'Saturday works', [], 'msg-7');
    expect(inTicketThread('Saturday works')).toBe(1);
    // A different message with the same words is its own message.
    await h.bridge.handoffs.relayFromUser(ticket, h.users.alice, h.surface, 'Saturday works', [], 'msg-8');
    expect(inTicketThread('Saturday works')).toBe(2);
  });
});
