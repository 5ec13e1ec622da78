/**
 * A `/ask` acknowledged by an instance that died before queueing it: the question was written down
 * first, so a sweep of another instance, once the dead one's lease lapsed, posts the root (unless it
 * was posted) and answers it; nothing is written down for long when nothing dies.
 */
import { ASK_INTENT_INDEX, beginAsk } from '../../../src/core/conversations/ask-intents';
import { leaseTimings } from '../../../src/core/leases';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { toJson } from '../../../src/core/conversations/model';
import type { Place } from '../../../src/core/surface';
import type { TestMessage } from '../../support/test-surface';
import { waitFor } from '../../../fakes/wait-for';

const finished = (m: TestMessage): boolean => !m.current.typing && m.current.text !== 'Thinking…';

describe('conversations: an /ask whose instance died before queueing it', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    // No timers: each sweep is the test's own call.
    h = await startCoreHarness({ start: false, instanceId: 'survivor' });
  });
  afterAll(async () => {
    await h.close();
  });

  /** The root posts quoting `question` (a root is posted outside any thread). */
  const rootsQuoting = (question: string) =>
    h.surface.calls.filter((c) => c.op === 'post' && !c.place?.thread && (c.msg?.text ?? '').includes(`> ${question}`));
  /** The thread a root post started (the startThread call recorded right after it). */
  const threadOf = (root: (typeof h.surface.calls)[number]): Place =>
    h.surface.calls.slice(h.surface.calls.indexOf(root)).find((c) => c.op === 'startThread')!.place!;

  /** Waits until the thread shows a finished answer naming `city`; returns the thread's messages. */
  const answeredIn = (thread: Place, city: string) =>
    waitFor(
      () => {
        const shown = h.surface.messagesIn(thread).filter((m) => finished(m) && m.current.text.includes(city));
        return shown.length > 0 ? shown : undefined;
      },
      `an answer about ${city}`,
      10_000,
    );

  it('leaves nothing written down once the question is queued', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Seattle?');
    expect(await h.store.keys('askintent:')).toEqual([]);
    await h.bridge.conversations.idle();
  });

  it('posts the root and answers a question the dead instance only acknowledged', async () => {
    const question = 'Which homes are for sale in Denver?';
    // What the dead instance wrote before posting anything; its lease is gone with it.
    await h.store.set(
      'askintent:dead-1',
      toJson({ surface: h.channel.surface, place: h.channel, actor: h.users.alice, question, owner: 'dead' }),
    );
    // Written by an instance of this version, so in the due index too.
    await h.store.schedule(ASK_INTENT_INDEX, 'dead-1', 0);
    await h.bridge.conversations.sweep();
    expect(rootsQuoting(question)).toHaveLength(1);
    const thread = threadOf(rootsQuoting(question)[0]!);
    await answeredIn(thread, 'Denver');
    expect(await h.store.keys('askintent:')).toEqual([]);
    // A second sweep finds nothing left: no second root, no second answer.
    await h.bridge.conversations.sweep();
    await h.bridge.conversations.idle();
    expect(rootsQuoting(question)).toHaveLength(1);
  });

  it('answers in the root the dead instance posted, without posting another', async () => {
    const question = 'Which homes are for sale in Miami?';
    const { thread, root } = await h.surface.startThread(h.channel, { text: `> ${question}` }, 'Miami');
    await h.store.set(
      'askintent:dead-2',
      toJson({
        surface: h.channel.surface,
        place: h.channel,
        actor: h.users.bob,
        question,
        owner: 'dead',
        root,
        thread,
      }),
    );
    // Written by an instance of this version, so in the due index too.
    await h.store.schedule(ASK_INTENT_INDEX, 'dead-2', 0);
    expect(rootsQuoting(question)).toHaveLength(1);
    await h.bridge.conversations.sweep();
    await answeredIn(thread, 'Miami');
    expect(rootsQuoting(question)).toHaveLength(1);
    expect(await h.store.keys('askintent:')).toEqual([]);
  });

  it('leaves a question alone while its instance holds the lease', async () => {
    await h.store.set(
      'askintent:alive-1',
      toJson({ surface: h.channel.surface, place: h.channel, actor: h.users.alice, question: 'x', owner: 'alive' }),
    );
    // Written by an instance of this version, so in the due index too.
    await h.store.schedule(ASK_INTENT_INDEX, 'alive-1', 0);
    expect(await h.store.acquireLease('askintent:alive-1', 'alive', 60_000)).toBe(true);
    await h.bridge.conversations.sweep();
    expect(await h.store.keys('askintent:')).toEqual(['askintent:alive-1']);
    expect(rootsQuoting('x')).toHaveLength(0);
  });
});

describe('conversations: an /ask in progress is held by its due entry alone', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    // No timers: each sweep is the test's own call (its first one walks every intent too).
    h = await startCoreHarness({ start: false, instanceId: 'walker' });
  });
  afterAll(async () => {
    await h.close();
  });

  it('writes the intent and its due entry a lease ahead, no lease key; ending it leaves nothing', async () => {
    const { ttlMs } = leaseTimings(h.ctx.config.leaseTtlMs);
    const ask = await beginAsk(h.ctx, {
      surface: h.channel.surface,
      place: h.channel,
      actor: h.users.alice,
      question: 'Which homes are for sale in Boise?',
    });
    const [key] = await h.store.keys('askintent:');
    const id = key!.slice('askintent:'.length);
    expect(await h.store.leaseInfo(`askintent:${id}`)).toBeUndefined();
    expect(await h.store.due(ASK_INTENT_INDEX, h.ctx.now() + ttlMs, 10)).toEqual([
      { member: id, dueAt: expect.any(Number) },
    ]);
    expect(await h.store.due(ASK_INTENT_INDEX, h.ctx.now() - 1, 10)).toEqual([]);
    await ask.end();
    expect(await h.store.keys('askintent:')).toEqual([]);
    expect(await h.store.due(ASK_INTENT_INDEX, Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
  });

  it("leaves a live instance's intent to its due entry, even on the walk of every intent; takes it once due", async () => {
    const question = 'Which homes are for sale in Tulsa?';
    await h.store.set(
      'askintent:held-1',
      toJson({
        surface: h.channel.surface,
        place: h.channel,
        actor: h.users.alice,
        question,
        owner: 'alive',
        dueHeld: true,
      }),
    );
    await h.store.schedule(ASK_INTENT_INDEX, 'held-1', h.ctx.now() + 60_000);
    // The bridge's first sweep: it walks every intent, and leaves this one (not due, no lease key).
    await h.bridge.conversations.sweep();
    expect(await h.store.keys('askintent:')).toEqual(['askintent:held-1']);
    expect(await h.store.leaseInfo('askintent:held-1')).toBeUndefined();
    // Its instance stopped moving the entry: due, taken over and answered.
    await h.store.schedule(ASK_INTENT_INDEX, 'held-1', 0);
    await h.bridge.conversations.sweep();
    await h.bridge.conversations.idle();
    await waitFor(async () => (await h.store.keys('askintent:')).length === 0, 'the intent finished');
    const roots = h.surface.calls.filter(
      (c) => c.op === 'post' && !c.place?.thread && (c.msg?.text ?? '').includes(`> ${question}`),
    );
    expect(roots).toHaveLength(1);
    expect(await h.store.leaseInfo('askintent:held-1')).toBeUndefined();
  });
});
