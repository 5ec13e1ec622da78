/**
 * The round-robin offer's private word ("A handoff ticket is offered to you") is a notice of the
 * offer itself, stored with it in one atomic step: a process stopped right after the offer was
 * written, before any notice went out (test hook BRIDGE_TEST_PAUSE_BEFORE_NOTICES), tells the agent
 * once after the restart, never twice; and an offer taken meanwhile is not told at all.
 */
import { NOTICE_BOX } from '../../../../src/core/handoff/notice';
import { asText } from '../../../../src/core/handoff/wording';
import type { Actor } from '../../../../src/core/surface';
import { waitFor } from '../../../../fakes/wait-for';
import { startCoreHarness, type CoreHarness } from '../../../support/core-harness';
import { openTicket } from './open-ticket';

const MIN = 60_000;

describe('round-robin offer across a restart', () => {
  let h: CoreHarness;
  let clock = Date.parse('2026-03-04T15:00:00Z');

  const configure = (harness: CoreHarness): void => {
    harness.ctx.now = () => clock;
    harness.config.office = { escalate: [], assign: 'round-robin', offerMs: 2 * MIN, digestHour: 8 };
  };
  beforeAll(async () => {
    h = await startCoreHarness({ start: false });
    configure(h);
  });
  afterAll(async () => {
    delete process.env.BRIDGE_TEST_PAUSE_BEFORE_NOTICES;
    await h.close();
  });

  const toldPrivately = (): string[] => h.surface.notices.map((n) => n.user.name);
  /** The sweep re-offers the ticket and stops between the offer's atomic step and its notices. */
  const reofferThenStop = async (to: Actor): Promise<void> => {
    process.env.BRIDGE_TEST_PAUSE_BEFORE_NOTICES = '1';
    void h.bridge.handoffs.sweepUnclaimed();
    const pending = await waitFor(async () => {
      const intents = await h.store.pendingIntents<{ kind: string; to?: { id: string } }>(NOTICE_BOX, 100);
      return intents.some((i) => i.value.kind === 'tell' && i.value.to?.id === to.id) && intents;
    }, `the offer to ${to.name} with its notices`);
    expect(pending.map((i) => i.value.kind)).toEqual(['toThread', 'refresh', 'tell']);
    delete process.env.BRIDGE_TEST_PAUSE_BEFORE_NOTICES;
    h = await h.restart();
    configure(h);
  };

  it('told once after a restart between the offer and its notices; an offer claimed meanwhile is not told', async () => {
    for (const agent of [h.agents.ann, h.agents.andy]) {
      clock += 1000; // the roster's order is the order they joined it
      await h.bridge.command(h.invocation(agent, h.handoffChannel), 'handoff', 'back');
    }
    await openTicket(h, h.users.alice);
    expect(toldPrivately()).toEqual(['Ann Agent']);

    // Unclaimed after HANDOFF_OFFER_S: offered to Andy, and the process stops before telling him.
    clock += 2 * MIN;
    await reofferThenStop(h.agents.andy);
    expect(toldPrivately()).toEqual(['Ann Agent']);
    await h.bridge.handoffs.drain();
    expect(toldPrivately()).toEqual(['Ann Agent', 'Andy Agent']);
    const told = h.surface.notices.at(-1)!;
    expect(told.msg.text).toBe(
      `A handoff ticket is offered to you: ${asText('Alice')} is waiting. Press Claim on it within 2 min.`,
    );
    // Drained again and swept within the offer: nothing doubled.
    await h.bridge.handoffs.drain();
    await h.bridge.handoffs.sweepUnclaimed();
    expect(toldPrivately()).toEqual(['Ann Agent', 'Andy Agent']);
    expect(await h.store.pendingIntents(NOTICE_BOX, 100)).toEqual([]);

    // Back to Ann, stopped again; after the restart Andy claims it before the notices are drained.
    clock += 2 * MIN;
    await reofferThenStop(h.agents.ann);
    const ticketMsg = h.surface.messagesIn(h.handoffChannel).at(-1)!;
    const claim = ticketMsg.current.buttons!.find((b) => b.action === 'handoff.claim')!;
    await h.bridge.action(
      h.invocation(h.agents.andy, h.handoffChannel, { source: ticketMsg.ref }),
      claim.action,
      claim.value,
    );
    expect(ticketMsg.current.text).toMatch(/^Claimed by Andy Agent/);
    await h.bridge.handoffs.drain();
    // The mention in the thread is history; the private word for an offer already taken is not sent.
    expect(toldPrivately()).toEqual(['Ann Agent', 'Andy Agent']);
    expect(await h.store.pendingIntents(NOTICE_BOX, 100)).toEqual([]);
  });
});
