/**
 * The asker of a conversation is who started it, recorded on the conversation (so it lives as long
 * as the conversation, not 30 days): a participant who writes in the thread may ask the bot, but
 * no path hands the conversation off for them or cancels its handoff: the "Talk to a human"
 * button, the offer of a 👎 vote, `/handoff`, "Ask about a viewing". An admin may act for the asker:
 * the ticket is then the asker's.
 */
import { VIEWING_ACTION } from '../../../src/core/listings/card-actions';
import { conversationIdOf, convKeys, convRefAt } from '../../../src/core/conversations/model';
import { convStore } from '../../support/conv-records';
import type { Button, Place } from '../../../src/core/surface';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { waitFor } from '../../../fakes/wait-for';

const ONLY_ASKER = /Only the person who asked in this conversation, or an admin/;

describe('handoff: the asker is who started the conversation', () => {
  let h: CoreHarness;
  let thread: Place;
  beforeAll(async () => {
    h = await startCoreHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const buttonsIn = (place: Place): Button[] => h.surface.messagesIn(place).flatMap((m) => m.current.buttons ?? []);
  const answered = (n: number) =>
    waitFor(() => buttonsIn(thread).filter((b) => b.action === 'handoff.request').length >= n, `${n} answers`, 10_000);
  const tickets = () => h.surface.messagesIn(h.handoffChannel);

  it('a participant may ask, but no path hands Alice’s conversation off for them', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Any 3 bedroom homes in Austin?');
    thread = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    await answered(1);
    await h.say(h.users.bob, thread, 'And any with a pool?');
    await answered(2);

    // The record: on the conversation itself, with no per-writer asker keys (those expired first).
    const conv = await h.bridge.conversations.load(convRefAt(thread));
    expect(conv?.asker).toEqual(h.users.alice);
    expect(await h.store.keys('convasker:')).toEqual([]);
    expect(await convStore(h.store, thread).get(convKeys.conversation(conversationIdOf(thread)))).toMatchObject({
      asker: { id: 'U-alice' },
    });

    const talk = buttonsIn(thread)
      .filter((b) => b.action === 'handoff.request')
      .at(-1)!;
    const pressed = h.invocation(h.users.bob, thread);
    await h.bridge.action(pressed, talk.action, talk.value);
    expect(pressed.replies.at(-1)).toMatchObject({ ephemeral: true, msg: { text: expect.stringMatching(ONLY_ASKER) } });

    // A 👎 vote offers "Talk to a human": pressing it is still not Bob's to do.
    const rated = h.surface.messagesIn(thread).find((m) => m.current.feedback)!.current.feedback!;
    const voted = h.invocation(h.users.bob, thread);
    await h.bridge.action(voted, rated.action, rated.negative);
    const offer = voted.replies.at(-1)!.msg.buttons!.find((b) => b.action === 'handoff.request')!;
    const fromOffer = h.invocation(h.users.bob, thread);
    await h.bridge.action(fromOffer, offer.action, offer.value);
    expect(fromOffer.texts().at(-1)).toMatch(ONLY_ASKER);

    const command = h.invocation(h.users.bob, thread);
    await h.bridge.command(command, 'handoff', 'please');
    expect(command.texts().at(-1)).toMatch(ONLY_ASKER);

    const viewing = h.invocation(h.users.bob, thread);
    await h.bridge.action(viewing, VIEWING_ACTION, 'MLS ATX240000');
    expect(viewing.texts().at(-1)).toMatch(ONLY_ASKER);

    // In the channel, Bob's "most recent conversation" is Alice's: not his to hand off either.
    const inChannel = h.invocation(h.users.bob);
    await h.bridge.command(inChannel, 'handoff', 'please');
    expect(inChannel.texts().at(-1)).toMatch(/no conversation of yours here/);
    expect(tickets()).toHaveLength(0);
  });

  it('Bob may not cancel Alice’s handoff; an admin acts for her, and her ticket stays hers', async () => {
    const mine = h.invocation(h.users.alice, thread);
    await h.bridge.command(mine, 'handoff', 'call me');
    await waitFor(() => tickets().length === 1, 'the ticket', 5000);
    const ticketId = (await h.bridge.handoffs.activeTicket(convRefAt(thread)))!.id;

    const cancel = h.invocation(h.users.bob, thread);
    await h.bridge.command(cancel, 'handoff', 'cancel');
    expect(cancel.texts().at(-1)).toMatch(/Only Alice, who asked for a human, or an admin may cancel/);
    const pressCancel = h.invocation(h.users.bob, thread);
    await h.bridge.action(pressCancel, 'handoff.cancel', ticketId);
    expect(pressCancel.texts().at(-1)).toMatch(/Only Alice, who asked for a human, or an admin may cancel/);
    expect((await h.bridge.handoffs.load(ticketId))?.status).toBe('open');

    const byAdmin = h.invocation(h.users.admin, thread);
    await h.bridge.command(byAdmin, 'handoff', 'cancel');
    expect((await h.bridge.handoffs.load(ticketId))?.status).toBe('cancelled');

    // An admin asks for a human in Alice's conversation: the ticket is Alice's, and says who asked.
    await h.bridge.command(h.invocation(h.users.admin, thread), 'handoff', 'she needs a call');
    const second = await waitFor(() => h.bridge.handoffs.activeTicket(convRefAt(thread)), 'the second ticket', 5000);
    expect(second.user).toEqual(h.users.alice);
    await waitFor(() => tickets().length === 2, 'its message', 5000);
    expect(tickets()[1]!.current.text).toContain(`asked for a human, by ${h.users.admin.name}`);
  });
});
