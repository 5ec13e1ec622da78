/**
 * Time to claim on the ticket is the user's wait until the claim: a take-over later does not add the
 * first agent's time to it (the state line and the queue), and a release starts a new wait. The
 * bridge's clock is set by the test (ctx.now), so the durations are exact.
 */
import { tenantOf } from '../../../src/core/tenants/tenant';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import type { Place } from '../../../src/core/surface';
import { withoutSpanMarks } from '../../../src/core/text/untrusted';
import { waitFor } from '../../../fakes/wait-for';

describe('handoff: time to claim across a take-over', () => {
  let h: CoreHarness;
  let t = Date.parse('2026-03-02T10:00:00.000Z');
  beforeAll(async () => {
    h = await startCoreHarness();
    h.ctx.now = () => t;
  });
  afterAll(async () => {
    await h.close();
  });

  it('claimed 40 s after the request stays 40 s after a take-over five minutes later', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Any 3 bedroom homes in Austin?');
    const thread: Place = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    const talk = await waitFor(
      () =>
        h.surface
          .messagesIn(thread)
          .flatMap((m) => m.current.buttons ?? [])
          .find((b) => b.action === 'handoff.request'),
      'Talk to a human',
      10_000,
    );
    await h.bridge.action(h.invocation(h.users.alice, thread), talk.action, talk.value);
    const ticket = await waitFor(() => h.surface.messagesIn(h.handoffChannel)[0], 'the ticket', 5000);
    const stateLine = (): string => ticket.current.text.split('\n')[0]!;
    const button = (action: string) => ticket.current.buttons!.find((b) => b.action === action)!;

    t += 40_000;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { source: ticket.ref }),
      'handoff.claim',
      button('handoff.claim').value,
    );
    await waitFor(() => /^Claimed by Ann/.test(stateLine()), 'claimed by Ann', 5000);
    expect(stateLine()).toBe(`Claimed by ${h.agents.ann.name} at 10:00 UTC, 40 s after the request`);

    t += 300_000;
    const ask = h.invocation(h.agents.andy, h.handoffChannel, { source: ticket.ref });
    await h.bridge.action(ask, 'handoff.takeover', button('handoff.takeover').value);
    const confirm = ask.replies.at(-1)!.msg.buttons![0]!;
    await h.bridge.action(
      h.invocation(h.agents.andy, h.handoffChannel, { source: ticket.ref }),
      confirm.action,
      confirm.value,
    );
    await waitFor(() => stateLine().startsWith(`Claimed by ${h.agents.andy.name}`), 'taken over', 5000);
    expect(stateLine()).toBe(`Claimed by ${h.agents.andy.name} at 10:05 UTC, 40 s after the request`);
    // Names are shown as text (between the span marks a surface renders as escaped text).
    expect(withoutSpanMarks((await h.bridge.handoffs.queueMessage(tenantOf(h.channel))).text)).toContain(
      `Claimed by ${h.agents.andy.name}, waited 40 s`,
    );

    // A release starts a new wait: the next claim counts from it.
    t += 60_000;
    await h.bridge.action(
      h.invocation(h.agents.andy, h.handoffChannel, { source: ticket.ref }),
      'handoff.release',
      button('handoff.release').value,
    );
    await waitFor(() => stateLine().startsWith('Waiting since 10:06 UTC'), 'waiting again', 5000);
    t += 20_000;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { source: ticket.ref }),
      'handoff.claim',
      button('handoff.claim').value,
    );
    await waitFor(() => /^Claimed by Ann/.test(stateLine()), 'claimed again', 5000);
    expect(stateLine()).toBe(`Claimed by ${h.agents.ann.name} at 10:07 UTC, 20 s after the request`);
  });
});
