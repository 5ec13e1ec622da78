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
