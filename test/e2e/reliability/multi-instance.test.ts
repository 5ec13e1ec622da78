/**
 * Two bridge processes (`node dist/main.js`) on one Redis database behind the same fake Slack: a
 * redelivered event is answered once, follow-ups alternating between instances stay in order, a
 * ticket claimed on both at once has one winner, and the two together stay within Slack's budgets.
 */
import type { SlackDriver } from '../../../fakes/slack-requests';
import { waitFor } from '../../../fakes/slack-requests';
import { type BridgeProcess, HANDOFF_CHANNEL, answerStarts, buttonsOf } from '../../support/bridge-process';
import { expectShows, useRig } from './rig';

const STATE_URL = 'redis://127.0.0.1:6379/12';

describe('reliability: two instances on one Redis', () => {
  // Streams last long enough (about a second) that answers are posted before they finish, then edited.
  // chat.update relaying (no native streaming) spends the workspace's edit budget, which both share.
  const rig = useRig({
    fragmentDelayMs: 25,
    flushRedis: STATE_URL,
    slack: {
      streaming: 'unknown_method',
      users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper', U0AGENT1: 'Agent Smith', U0AGENT2: 'Agent Jones' },
    },
  });
  let a: BridgeProcess;
  let b: BridgeProcess;
  let viaA: SlackDriver;
  let viaB: SlackDriver;

  beforeAll(async () => {
    // Both agents are members of the handoff channel (agents: conversations.members).
    rig.fake.channelMembers[HANDOFF_CHANNEL] = ['U0AGENT1', 'U0AGENT2'];
    const opts = { stateUrl: STATE_URL, extra: { LOG_LEVEL: process.env.REL_LOG ?? 'info' } };
    [a, b] = await Promise.all([rig.start('multi-a', opts), rig.start('multi-b', opts)]);
    viaA = rig.driverOf(a);
    viaB = rig.driverOf(b);
  }, 60_000);

  test('both instances are healthy and report distinct instance ids', async () => {
    const [ha, hb] = await Promise.all([fetch(`${a.url}/healthz`), fetch(`${b.url}/healthz`)]);
    expect([ha.status, hb.status]).toEqual([200, 200]);
    const [ja, jb] = (await Promise.all([ha.json(), hb.json()])) as Array<{ instance: string }>;
    expect(ja.instance).toBe('multi-a');
    expect(jb.instance).toBe('multi-b');
  });

  test('an event delivered to A and redelivered to B (X-Slack-Retry-Num: 1) is answered once', async () => {
    const question = 'Homes for sale in Austin please';
    const first = await rig.mention(viaA, 'C0DEDUPE', question);
    const { ts, event } = first;
    const retry = await viaB.event(event, { eventId: first.eventId, retryNum: 1 });
    // Slack also sends the same message as a message.channels event, with another event id, to B.
    const asMessage = await viaB.event({
      type: 'message',
      channel: 'C0DEDUPE',
      channel_type: 'channel',
      user: 'U0USER1',
      text: event.text,
      ts,
    });
    expect([200, retry.status, asMessage.status]).toEqual([200, 200, 200]);
    await rig.expectAnswered('C0DEDUPE', ts, question);

    // A follow-up through B, answered after the redeliveries were handled: a barrier without sleeping.
    const followUp = 'And condos for rent in Denver?';
    await rig.say(viaB, { channel: 'C0DEDUPE', thread: ts }, followUp);
    await rig.expectAnswered('C0DEDUPE', ts, followUp);

    expect(rig.service.storedAnswers(question)).toHaveLength(1);
    const answer = rig.service.storedAnswers(question)[0]!;
    expect(answerStarts(rig.botReplies('C0DEDUPE', ts), answer)).toHaveLength(1);
  }, 90_000);

  test('follow-ups in one thread sent alternately to A and B are answered in order', async () => {
    const opening = 'Show me homes for sale in Denver';
    const root = await rig.ask(viaA, opening, 'C0ORDER', 'U0USER2');
    const questions = [
      'What about homes for rent in Austin?',
      'Any condos for sale in Seattle?',
      'Any homes for rent in Denver?',
      'Houses for sale in Miami with a pool?',
    ];
    // Each sent to the other instance as soon as the service has the previous one, i.e. while the
    // previous answer still streams on whichever instance holds the thread: it must wait its turn.
    const all = [opening, ...questions];
    let queuedBehindAStream = 0;
    for (const [i, q] of questions.entries()) {
      const previous = all[i]!;
      const session = await waitFor(
        () => rig.service.sessionOf(previous),
        `the service to receive "${previous}"`,
        30_000,
      );
      expect(rig.service.questionsOf(session)).toContain(previous);
      if (rig.service.storedAnswers(previous).length === 0) queuedBehindAStream++;
      await rig.say(i % 2 === 0 ? viaA : viaB, { channel: 'C0ORDER', thread: root.ts, user: 'U0USER2' }, q);
    }
    expect(queuedBehindAStream).toBeGreaterThan(0);
    const positions = await waitFor(
      () => {
        const p = all.map((q) => rig.answerAt('C0ORDER', root.ts, q));
        return p.every((x) => x !== undefined) ? (p as number[]) : undefined;
      },
      'every answer in the thread',
      60_000,
    );
    // Answers appear in the thread in the order of the questions...
    for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
    // ...each once, and the service got them in that order in one chat session.
    for (const q of all) expect(rig.service.storedAnswers(q)).toHaveLength(1);
    const session = rig.service.sessionOf(opening);
    expect(session).toBeDefined();
    expect(rig.service.questionsOf(session!)).toEqual(all);
  }, 120_000);

  test('two agents clicking Claim at the same moment, on A and on B: one wins, the other is told who holds it', async () => {
    const question = 'Homes for sale in Austin with a garden';
    const root = await rig.ask(viaA, question, 'C0CLAIM');
    await rig.expectAnswered('C0CLAIM', root.ts, question);
    const res = await viaB.command('/handoff', 'I want to speak to a person', { user: 'U0USER1', channel: 'C0CLAIM' });
    expect(res.status).toBe(200);
    const ticket = await waitFor(
      () =>
        rig.fake
          .channelMessages(HANDOFF_CHANNEL)
          .find((m) => m.text.includes('I want to speak to a person') && buttonsOf(m).some((x) => x.text === 'Claim')),
      'the ticket with a Claim button',
      20_000,
    );
    const claim = buttonsOf(ticket).find((x) => x.text === 'Claim')!;
    const where = { channel: HANDOFF_CHANNEL, messageTs: ticket.ts };
    const [r1, r2] = await Promise.all([
      viaA.click(claim, where, { user: 'U0AGENT1' }),
      viaB.click(claim, where, { user: 'U0AGENT2' }),
    ]);
    expect([r1.status, r2.status]).toEqual([200, 200]);

    const claimedPosts = () =>
      rig.fake.replies(HANDOFF_CHANNEL, ticket.ts).filter((m) => / claimed this ticket/.test(m.text));
    const posts = await waitFor(
      () => (claimedPosts().length > 0 ? claimedPosts() : undefined),
      'the claim notice in the ticket thread',
      20_000,
    );
    const winner = posts[0]!.text.startsWith('Agent Smith')
      ? { id: 'U0AGENT1', name: 'Agent Smith' }
      : { id: 'U0AGENT2', name: 'Agent Jones' };
    const loser = winner.id === 'U0AGENT1' ? 'U0AGENT2' : 'U0AGENT1';
    const told = await waitFor(
      () => rig.fake.ephemerals.find((e) => e.user === loser && e.text.includes('Already claimed')),
      'the loser told ephemerally',
      20_000,
    );
    expect(told.text).toContain(winner.name);
    // The ticket message shows the claim (and no longer offers Claim).
    await expectShows(
      () => rig.fake.message(HANDOFF_CHANNEL, ticket.ts)!.text,
      new RegExp(`Claimed by ${winner.name}`),
      'the ticket message showing the claim',
      20_000,
    );
    expect(buttonsOf(rig.fake.message(HANDOFF_CHANNEL, ticket.ts)!).some((x) => x.text === 'Claim')).toBe(false);
    // Exactly one winner: one claim notice in the agents' thread and one "has joined" to the user.
    const joined = () =>
      rig.fake.replies('C0CLAIM', root.ts).filter((m) => m.text.includes('has joined the conversation'));
    const joinedPosts = await waitFor(
      () => (joined().length > 0 ? joined() : undefined),
      'the user told an agent joined',
      20_000,
    );
    expect(joinedPosts[0]!.text).toContain(winner.name);
    expect(claimedPosts()).toHaveLength(1);
    expect(joined()).toHaveLength(1);
    expect(rig.fake.ephemerals.filter((e) => e.user === winner.id && e.text.includes('Already claimed'))).toHaveLength(
      0,
    );
  }, 90_000);

  test('the combined chat.update rate of both instances stays within the workspace budget: no 429', async () => {
    // More answers on both instances at once than one minute's chat.update budget has finals for:
    // only a budget both instances spend together keeps Slack from answering 429.
    const cities = ['Austin', 'Denver', 'Seattle', 'Miami'];
    const asks = Array.from(
      { length: 60 },
      (_, i) => `Homes for ${i % 2 ? 'rent' : 'sale'} in ${cities[i % 4]} (burst ${i})`,
    );
    await Promise.all(
      // Twelve users, five questions each: within each person's flood limit (USER_RATE_LIMIT, 30 a minute), so
      // what is measured is the workspace's budget, not the per-user one.
      asks.map((q, i) =>
        (i % 2 === 0 ? viaA : viaB).command('/ask', q, { user: `U0BURST${i % 12}`, channel: `C0BURST${i}` }),
      ),
    );
    const where = await waitFor(
      () => {
        const at = asks.map((q, i) => {
          const root = rig.fake.channelMessages(`C0BURST${i}`).find((m) => m.text.includes(`(burst ${i})`));
          return root === undefined ? undefined : rig.answerAt(`C0BURST${i}`, root.ts, q);
        });
        return at.every((x) => x !== undefined) ? at : undefined;
      },
      'every burst answer complete',
      150_000,
    );
    expect(where).toHaveLength(asks.length);
    const updates = rig.fake.calls.filter((c) => c.method === 'chat.update' && c.status === 200).map((c) => c.at);
    expect(updates.length).toBeGreaterThan(0);
    // No 60 s window holds more than Slack's 50 (Tier 3, per workspace), whichever instance sent them.
    for (let i = 0; i < updates.length; i++) {
      // Grants are timed by Redis, arrivals here: allow for the calls' own latency.
      const inWindow = updates.filter((t) => t >= updates[i]! && t < updates[i]! + 59_000).length;
      expect(inWindow).toBeLessThanOrEqual(50);
    }
    expect(rig.fake.rateLimited).toBe(0);
    expect(a.exit).toBeUndefined();
    expect(b.exit).toBeUndefined();
  }, 170_000);
});
