/**
 * `whoIs` is the one way a role is learnt, and it asks the platform whether someone is an agent
 * only when the permission table's answer depends on it: a user's message forwarded to the ticket
 * thread, a handoff request and Retry cost no membership lookup; the queue and away/back do, and
 * are answered from the table's rows.
 */
import type { Place } from '../../../src/core/surface';
import { startCoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';

describe('handoff: who is an agent, asked when it matters', () => {
  const h = useStarted(() => startCoreHarness({ start: false }));
  const lookups: string[] = [];

  beforeAll(() => {
    const real = h.surface.isMember.bind(h.surface);
    h.surface.isMember = (channel: Place, userId: string) => {
      lookups.push(userId);
      return real(channel, userId);
    };
  });

  it('a handoff request and the user’s messages in handoff look nobody up; the queue and away/back do', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Seattle?');
    const thread = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    await h.bridge.conversations.idle();
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'a viewing');
    await h.say(h.users.alice, thread, 'Saturday works');
    await h.say(h.users.bob, thread, 'Me too');
    await h.bridge.conversations.idle();
    expect(lookups).toEqual([]);

    const bobQueue = h.invocation(h.users.bob);
    await h.bridge.command(bobQueue, 'handoff', 'queue');
    expect(bobQueue.texts()).toEqual(['The handoff queue is for members of the handoff channel and admins.']);
    const annQueue = h.invocation(h.agents.ann);
    await h.bridge.command(annQueue, 'handoff', 'queue');
    expect(annQueue.texts()[0]).toMatch(/^\*Handoff queue\*: 1 open, 1 waiting/);
    const bobAway = h.invocation(h.users.bob);
    await h.bridge.command(bobAway, 'handoff', 'away');
    expect(bobAway.texts()).toEqual(['Away and back are for members of the handoff channel.']);
    expect(lookups).toEqual([h.users.bob.id, h.agents.ann.id, h.users.bob.id]);
    // The App Home asks the same row.
    expect(await h.bridge.handoffQueue(h.users.bob, h.surface, h.channel.workspace)).toBeUndefined();
    expect((await h.bridge.handoffQueue(h.agents.andy, h.surface, h.channel.workspace))?.text).toMatch(
      /^\*Handoff queue\*/,
    );
  });
});
