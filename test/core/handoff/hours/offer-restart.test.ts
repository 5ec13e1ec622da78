/**
 * The round-robin offer's private word ("A handoff ticket is offered to you") is a notice of the
 * offer, stored with it in one atomic step (told once across a restart: round-robin.test.ts). Carried
 * out late, after a restart that stopped the process between the offer and its notices (test hook
 * BRIDGE_TEST_PAUSE_BEFORE_NOTICES), it is not sent for an offer claimed meanwhile.
 */
import { NOTICE_BOX } from '../../../../src/core/handoff/notice';
import type { Actor } from '../../../../src/core/surface';
import { waitFor } from '../../../../fakes/wait-for';
import { startCoreHarness, type CoreHarness } from '../../../support/core-harness';
import { openTicket, roundRobinOn } from './open-ticket';

const MIN = 60_000;

describe('round-robin: an offer told late', () => {
  let h: CoreHarness;
  let clock = Date.parse('2026-03-04T15:00:00Z');
  beforeAll(async () => {
    h = roundRobinOn(await startCoreHarness({ start: false }), () => clock);
  });
  afterAll(async () => {
    await h.close();
  });

  const toldPrivately = (): string[] => h.surface.notices.map((n) => n.user.name);
  /** The sweep re-offers the ticket and stops between the offer's atomic step and its notices. */
  const reofferThenStop = async (to: Actor): Promise<void> => {
    h.config.testPauses = { beforeNotices: true };
    void h.bridge.handoffs.sweepUnclaimed();
    const pending = await waitFor(async () => {
      const intents = await h.store.pendingIntents<{ kind: string; to?: { id: string } }>(NOTICE_BOX, 100);
      return intents.some((i) => i.value.kind === 'tell' && i.value.to?.id === to.id) && intents;
    }, `the offer to ${to.name} with its notices`);
    expect(pending.map((i) => i.value.kind)).toEqual(['toThread', 'refresh', 'tell']);
    delete h.config.testPauses;
    h = roundRobinOn(await h.restart(), () => clock);
  };

  it('an offer claimed between the restart and the drain is not told privately', async () => {
    for (const agent of [h.agents.ann, h.agents.andy]) {
      clock += 1000; // the roster's order is the order they joined it
      await h.bridge.command(h.invocation(agent, h.handoffChannel), 'handoff', 'back');
    }
    await openTicket(h, h.users.alice);
    expect(toldPrivately()).toEqual(['Ann Agent']);

    // Unclaimed after HANDOFF_OFFER_S: offered to Andy, and the process stops before telling him.
    clock += 2 * MIN;
    await reofferThenStop(h.agents.andy);
    // After the restart Ann claims it before the notices are drained.
    const ticketMsg = h.surface.messagesIn(h.handoffChannel).at(-1)!;
    const claim = ticketMsg.current.buttons!.find((b) => b.action === 'handoff.claim')!;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { source: ticketMsg.ref }),
      claim.action,
      claim.value,
    );
    expect(ticketMsg.current.text).toMatch(/^Claimed by Ann Agent/);
    await h.bridge.handoffs.drain();
    // The mention in the thread is history; the private word for an offer already taken is not sent.
    expect(toldPrivately()).toEqual(['Ann Agent']);
    expect(await h.store.pendingIntents(NOTICE_BOX, 100)).toEqual([]);
  });
});
