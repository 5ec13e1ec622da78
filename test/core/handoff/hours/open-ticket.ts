/** A conversation of `user` handed off on a core harness: the user's thread and the ticket thread. */
import type { Actor, Place } from '../../../../src/core/surface';
import type { CoreHarness } from '../../../support/core-harness';

export async function openTicket(
  h: CoreHarness,
  user: Actor,
  question = 'Which homes are for sale in Austin?',
): Promise<{ thread: Place; ticketThread: Place }> {
  await h.bridge.command(h.invocation(user), 'ask', question);
  const thread = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel).at(-1)!
    .place!;
  await h.bridge.conversations.idle();
  await h.bridge.command(h.invocation(user, thread), 'handoff', 'call me');
  const ticketThread = h.surface.calls
    .filter((c) => c.op === 'startThread' && c.place?.channel === h.handoffChannel.channel)
    .at(-1)!.place!;
  return { thread, ticketThread };
}

/** Round-robin on a core harness (HANDOFF_ASSIGN=round-robin, HANDOFF_OFFER_S 2 min) on the injected clock `now`; again after a restart. */
export function roundRobinOn(h: CoreHarness, now: () => number): CoreHarness {
  h.ctx.now = now;
  h.config.office = { escalate: [], assign: 'round-robin', offerMs: 2 * 60_000, digestHour: 8 };
  return h;
}
