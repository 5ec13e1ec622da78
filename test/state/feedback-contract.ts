import { FeedbackStore } from '../../src/state/feedback-store';
import type { StateStore } from '../../src/state/store';
import { tenantFor, tenantStore, type TenantStore } from '../../src/state/tenant-store';

/**
 * The behaviour of answer feedback on a store, run against each StateStore implementation: two
 * connections to one backing (two instances) see the same answers and votes.
 */
export function runFeedbackContract(open: () => Promise<StateStore>): void {
  let rawA: StateStore;
  let rawB: StateStore;
  let a: TenantStore;
  let b: TenantStore;
  let n = 0;
  const fresh = (label: string): string => `fb${Date.now().toString(36)}${++n}${label}`;

  beforeAll(async () => {
    rawA = await open();
    rawB = await open();
    a = tenantStore(rawA, tenantFor('slack', 'T1'));
    b = tenantStore(rawB, tenantFor('slack', 'T1'));
  });
  afterAll(async () => {
    await rawA?.close();
    await rawB?.close();
  });

  const answer = (id: string, at = 1_000) => ({
    id,
    surface: 'slack',
    conversation: 'conv1',
    workspace: 'T1',
    channel: 'D1',
    thread: '1.1',
    at,
  });

  it('keeps a rated answer, completed later with its message and the service AnswerID', async () => {
    const id = fresh('ans');
    await new FeedbackStore(a).saveAnswer(answer(id));
    const one = new FeedbackStore(b);
    expect(await one.answer(id)).toMatchObject({ id, conversation: 'conv1', thread: '1.1' });
    await one.saveAnswer({ ...answer(id), message: '2.2', answerId: 4242 });
    expect(await new FeedbackStore(a).answer(id)).toMatchObject({ message: '2.2', answerId: 4242, channel: 'D1' });
    expect(await new FeedbackStore(a).answer(fresh('missing'))).toBeUndefined();
  });

  it('records one vote per person per answer: the same press again changes nothing, the other one changes the vote', async () => {
    const id = fresh('vote');
    const fa = new FeedbackStore(a);
    const fb = new FeedbackStore(b);
    expect(await fa.vote(id, 'U1', 'positive', 'slack', 10)).toEqual({ kind: 'recorded' });
    expect(await fb.vote(id, 'U1', 'positive', 'slack', 11)).toEqual({ kind: 'unchanged' });
    expect(await fb.vote(id, 'U1', 'negative', 'slack', 12)).toEqual({ kind: 'changed', previous: 'positive' });
    expect(await fa.vote(id, 'U2', 'positive', 'slack', 13)).toEqual({ kind: 'recorded' });
    const votes = await fa.votesOn(id);
    expect(votes.map((v) => `${v.user}:${v.vote}`).sort()).toEqual(['U1:negative', 'U2:positive']);
    expect(await fb.voteOf(id, 'U1')).toMatchObject({ vote: 'negative', at: 12 });
  });

  it('concurrent presses by one person from two instances leave exactly one vote', async () => {
    const id = fresh('race');
    const results = await Promise.all([
      new FeedbackStore(a).vote(id, 'U9', 'positive', 'discord', 20),
      new FeedbackStore(b).vote(id, 'U9', 'positive', 'discord', 21),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(['recorded', 'unchanged']);
    expect(await new FeedbackStore(a).votesOn(id)).toHaveLength(1);
  });

  it('tallies the votes cast in a period across surfaces', async () => {
    const base = 5_000_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
    const fa = new FeedbackStore(a);
    const before = await fa.tally(base, base + 100);
    await fa.vote(fresh('t1'), 'U1', 'positive', 'slack', base + 1);
    await fa.vote(fresh('t2'), 'U1', 'negative', 'discord', base + 2);
    await fa.vote(fresh('t3'), 'U2', 'positive', 'discord', base + 3);
    await fa.vote(fresh('t4'), 'U2', 'positive', 'slack', base + 500); // outside the period
    const t = await new FeedbackStore(b).tally(base, base + 100);
    expect(t.positive - before.positive).toBe(2);
    expect(t.negative - before.negative).toBe(1);
    expect(t.bySurface.discord).toEqual({ positive: 1, negative: 1 });
  });

  it('survives reopening the store (durable)', async () => {
    const id = fresh('durable');
    await new FeedbackStore(a).vote(id, 'U7', 'negative', 'slack', 30);
    const c = await open();
    try {
      expect(await new FeedbackStore(tenantStore(c, a.tenant)).voteOf(id, 'U7')).toMatchObject({ vote: 'negative' });
    } finally {
      await c.close();
    }
  });

  it('keeps each tenant to its own answers and votes; an answer rated before the move is still found, by its tenant only', async () => {
    const id = fresh('tenants');
    const other = new FeedbackStore(tenantStore(rawA, tenantFor('slack', 'T2')), rawA);
    const before = await other.tally(0, 10_000);
    await new FeedbackStore(a).saveAnswer(answer(id));
    await new FeedbackStore(a).vote(id, 'U1', 'positive', 'slack', 50);
    expect(await other.answer(id)).toBeUndefined();
    expect(await other.votesOn(id)).toEqual([]);
    expect(await other.tally(0, 10_000)).toEqual(before);
    // Where answers were kept before: found through the raw store, but only by the answer's own tenant.
    const legacy = fresh('legacy');
    await rawA.set(`feedback:answer:${legacy}`, answer(legacy));
    expect(await new FeedbackStore(a, rawA).answer(legacy)).toMatchObject({ id: legacy, workspace: 'T1' });
    expect(await other.answer(legacy)).toBeUndefined();
  });
}
