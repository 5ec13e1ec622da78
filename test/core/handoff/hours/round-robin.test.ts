/**
 * Round-robin assignment (HANDOFF_ASSIGN=round-robin) over three agents, one of them away, on an
 * injected clock: each new ticket is offered to the next available agent in turn (mentioned in the
 * ticket thread, told privately); unclaimed after HANDOFF_OFFER_S it is offered to the next; the away
 * agent is never offered one but may still claim; `/handoff away|back` is stored and the queue shows it.
 */
import { NOTICE_BOX } from '../../../../src/core/handoff/notice';
import type { Place } from '../../../../src/core/surface';
import { waitFor } from '../../../../fakes/wait-for';
import { startCoreHarness, type CoreHarness } from '../../../support/core-harness';
import { openTicket } from './open-ticket';

const MIN = 60_000;

describe('round-robin assignment', () => {
  let h: CoreHarness;
  let clock = Date.parse('2026-03-03T15:00:00Z');
  const cat = { id: 'A-cat', name: 'Cat Agent', isAdmin: false };
  beforeAll(async () => {
    h = await startCoreHarness({ start: false });
    h.ctx.now = () => clock;
    h.config.office = { escalate: [], assign: 'round-robin', offerMs: 2 * MIN, digestHour: 8 };
    h.surface.members.get(h.handoffChannel.channel)?.add(cat.id);
  });
  afterAll(async () => {
    await h.close();
  });

  const say = async (actor: typeof cat, args: string): Promise<string | undefined> => {
    const inv = h.invocation(actor, h.handoffChannel);
    clock += 1000; // commands a second apart: the roster's order is the order they joined it
    await h.bridge.command(inv, 'handoff', args);
    return inv.texts().at(-1);
  };
  const offers = (ticketThread: Place): string[] =>
    h.surface
      .messagesIn(ticketThread)
      .map((m) => m.current.text)
      .filter((t) => t.startsWith('Offered to'))
      .map((t) => /^Offered to (\S+)/.exec(t)![1]!);
  const toldPrivately = (): string[] => h.surface.notices.map((n) => n.user.name);

  it('offers in turn, skips the away agent, re-offers after HANDOFF_OFFER_S; anyone may still claim', async () => {
    // The roster, in the order the agents said so; Cat is away (stored).
    expect(await say(h.agents.ann, 'back')).toMatch(/^You are back/);
    expect(await say(h.agents.andy, 'back')).toMatch(/^You are back/);
    expect(await say(cat, 'away')).toMatch(/^You are away/);
    // Not an agent: refused.
    expect(await say(h.users.bob, 'away')).toMatch(/for members of the handoff channel/);

    const first = (await openTicket(h, h.users.alice)).ticketThread;
    expect(offers(first)).toEqual(['<@A-ann>']);
    expect(h.surface.messagesIn(first).at(-1)!.current.text).toMatch(
      /^Offered to <@A-ann> \(round-robin\): please claim it within 2 min, or it goes to the next agent/,
    );
    expect(toldPrivately()).toEqual(['Ann Agent']);
    const ticketMsg = h.surface.messagesIn(h.handoffChannel).at(-1)!;
    expect(ticketMsg.current.text.split('\n')[1]).toBe('Offered to Ann Agent (round-robin)');

    // Within the offer nothing moves; after HANDOFF_OFFER_S the next available agent (not Cat) is offered it.
    clock += 2 * MIN - 1000;
    await h.bridge.handoffs.sweepUnclaimed();
    expect(offers(first)).toEqual(['<@A-ann>']);
    clock += 1000;
    await h.bridge.handoffs.sweepUnclaimed();
    await h.bridge.handoffs.sweepUnclaimed();
    expect(offers(first)).toEqual(['<@A-ann>', '<@A-andy>']);
    clock += 2 * MIN;
    await h.bridge.handoffs.sweepUnclaimed();
    expect(offers(first)).toEqual(['<@A-ann>', '<@A-andy>', '<@A-ann>']);
    expect(toldPrivately()).toEqual(['Ann Agent', 'Andy Agent', 'Ann Agent']);

    // The next ticket goes to the next in turn.
    const second = (await openTicket(h, h.users.bob)).ticketThread;
    expect(offers(second)).toEqual(['<@A-andy>']);

    // The queue (and App Home, which shows it) says who is away.
    const queue = await say(h.users.admin, 'queue');
    expect(queue).toMatch(/^Away: Cat Agent$/m);

    // Away is only about offers: Cat may still claim.
    const claim = h.invocation(cat, h.handoffChannel, { source: ticketMsg.ref });
    await h.bridge.action(
      claim,
      'handoff.claim',
      ticketMsg.current.buttons!.find((b) => b.action === 'handoff.claim')!.value,
    );
    expect(ticketMsg.current.text).toMatch(/^Claimed by Cat Agent/);
    expect(ticketMsg.current.text).not.toMatch(/Offered to/);
    // Back: Cat is in the turn again, after Andy.
    expect(await say(cat, 'back')).toMatch(/^You are back/);
    const third = (await openTicket(h, h.users.admin)).ticketThread;
    expect(offers(third)).toEqual(['<@A-cat>']);
    expect(await say(h.users.admin, 'queue')).not.toMatch(/Away:/);
  });
});

describe('round-robin: the private word of an offer is owed with it', () => {
  let h: CoreHarness;
  const clock = Date.parse('2026-03-03T15:00:00Z');
  const configure = (harness: CoreHarness): void => {
    harness.ctx.now = () => clock;
    harness.config.office = { escalate: [], assign: 'round-robin', offerMs: 2 * MIN, digestHour: 8 };
  };
  beforeAll(async () => {
    h = await startCoreHarness({ start: false });
    configure(h);
  });
  afterAll(async () => {
    await h.close();
  });

  it('a restart between the offer and its notices: the offered agent is told once', async () => {
    // Nobody on the roster yet: the ticket waits unoffered; then Ann is back.
    const { ticketThread } = await openTicket(h, h.users.alice);
    const before = h.surface.notices.length;
    await h.bridge.command(h.invocation(h.agents.ann, h.handoffChannel), 'handoff', 'back');
    // The process stops between the offer's one atomic step and its notices (never set in production).
    h.config.testPauses = { beforeNotices: true };
    void h.bridge.handoffs.sweepUnclaimed();
    const owed = await waitFor(async () => {
      const pending = await h.store.pendingIntents<{ kind: string }>(NOTICE_BOX, 50);
      return pending.some((i) => i.value.kind === 'tell') && pending;
    }, 'the offer with its notices');
    expect(owed.map((i) => i.value.kind)).toEqual(['toThread', 'refresh', 'tell']);
    expect(h.surface.notices).toHaveLength(before);
    delete h.config.testPauses;

    h = await h.restart();
    configure(h);
    await h.bridge.handoffs.drain();
    await h.bridge.handoffs.drain();
    const told = h.surface.notices.slice(before);
    expect(told.map((n) => n.user.name)).toEqual(['Ann Agent']);
    expect(told[0]!.place).toEqual(ticketThread);
    // The user's name is marked as untrusted text (the platform renderers escape it).
    expect(told[0]!.msg.text).toMatch(
      /^A handoff ticket is offered to you: \W?Alice\W? is waiting\. Press Claim on it within 2 min\./u,
    );
    expect(
      h.surface
        .messagesIn(ticketThread)
        .map((m) => m.current.text)
        .filter((t) => t.startsWith('Offered to')),
    ).toHaveLength(1);
  });
});
