/**
 * SlackPort against the fake Web API: the native-streaming tier budgets (the fake's and the gateway's),
 * paced and coalesced button updates, streams addressed to whom the answer is for, and stopNativeStream finishing a stream another process left open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Place } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { POST_BUDGET, type SlackPort, STREAM_BUDGETS } from '../../../src/surfaces/slack/port';
import { FakeSlack } from '../../../fakes/fake-slack';
import { slackPortOn } from '../../support/slack-port';

describe('SlackPort budgets, recipients and stopNativeStream', () => {
  let fake: FakeSlack;
  let store: SqliteStore;
  let dir: string;
  const ports: SlackPort[] = [];

  /** A port as one instance has it: its own memory, the shared store. */
  const newPort = (): SlackPort => {
    const port = slackPortOn(fake, store);
    ports.push(port);
    return port;
  };

  /** Tokens still free on a budget key (takes them all: use on keys the test is done with). */
  const drain = async (key: string, limit: number): Promise<number> => {
    let n = 0;
    while ((await store.takeToken(key, limit, 60_000)).granted) n++;
    return n;
  };

  /** Tests that need fresh store budgets use a workspace of their own (the store keys budgets by it). */
  const place = (channel: string, thread: string, workspace = fake.team): Place => ({
    surface: 'slack',
    workspace,
    channel,
    thread,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slack-port-'));
    store = new SqliteStore(join(dir, 'state.db'));
    fake = await new FakeSlack().start();
  });

  afterAll(async () => {
    for (const p of ports) p.close();
    await fake.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the fake enforces the streaming tiers per workspace with 429 and Retry-After, counted', async () => {
    // A stopped clock: the buckets do not refill while the burst runs (on a loaded machine it may take seconds).
    const other = await new FakeSlack({ team: 'T0TIERS', now: () => 0 }).start();
    try {
      const post = (method: string, body: Record<string, unknown>): Promise<Response> =>
        fetch(`${other.apiUrl}${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${other.botToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const starts = [];
      for (let i = 0; i < STREAM_BUDGETS.start.limit + 1; i++)
        starts.push(await post('chat.startStream', { channel: 'C1', thread_ts: '1.1' }));
      expect(starts.slice(0, -1).every((r) => r.status === 200)).toBe(true);
      expect(starts.at(-1)!.status).toBe(429);
      expect(Number(starts.at(-1)!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const ts = String(((await starts[0]!.json()) as { ts: string }).ts);
      // The bucket refills (100 a minute) while a loaded machine makes these calls: call until the
      // first 429, which must come after the whole budget and no sooner.
      const appends: number[] = [];
      while (!appends.includes(429) && appends.length < STREAM_BUDGETS.append.limit * 2) {
        appends.push((await post('chat.appendStream', { channel: 'C1', ts, markdown_text: 'x' })).status);
      }
      expect(appends.at(-1)).toBe(429);
      expect(appends.length).toBeGreaterThan(STREAM_BUDGETS.append.limit);
      const stops = [];
      for (let i = 0; i < STREAM_BUDGETS.stop.limit + 1; i++)
        stops.push((await post('chat.stopStream', { channel: 'C1', ts })).status);
      expect(stops.at(-1)).toBe(429);
      expect(stops.filter((s) => s === 429)).toHaveLength(1);
      expect(other.rateLimited).toBe(3);
    } finally {
      await other.close();
    }
  });

  test('a live native stream is paced on appendStream and stopStream budgets, and keeps a chat.update final for its fallback', async () => {
    const port = newPort();
    const thread = place('C0NATIVE', '100.1');
    const finals = (method: string): number => port.gateway.finalsAwaited(`slack:${fake.team}:${method}`);
    const release = port.reserveFinal(thread, 'answer-1');
    expect(finals('chat.update')).toBe(1);
    release();
    const stream = await port.startNativeStream(thread, { text: '' });
    expect(stream).toBeDefined();
    // The answer's interims in this thread are now appends, planned on the append budget; a stream
    // that fails is finished with chat.update, so it keeps a chat.update final too.
    const live = port.reserveFinal(thread, 'answer-1');
    expect(finals('chat.appendStream')).toBe(1);
    expect(finals('chat.update')).toBe(1);
    // Other threads still edit with chat.update.
    const other = port.reserveFinal(place('C0NATIVE', '100.2'), 'answer-2');
    expect(finals('chat.update')).toBe(2);
    expect(finals('chat.appendStream')).toBe(1);
    live();
    other();
    expect(finals('chat.update')).toBe(0);
    expect(finals('chat.appendStream')).toBe(0);
    await stream!.append('Hello');
    await stream!.stop({ text: 'Hello world' });
    expect(fake.message('C0NATIVE', stream!.ref.id)!.text).toBe('Hello world');
    // The start and the stop each took one token of their own Tier 2 budget.
    expect(await drain(`slack:${fake.team}:chat.startStream`, STREAM_BUDGETS.start.limit)).toBe(
      STREAM_BUDGETS.start.limit - 1,
    );
    expect(await drain(`slack:${fake.team}:chat.stopStream`, STREAM_BUDGETS.stop.limit)).toBe(
      STREAM_BUDGETS.stop.limit - 1,
    );
  });

  test('with the startStream budget spent, the answer falls back to chat.update at once (no call, no wait)', async () => {
    // The previous test drained the workspace's start budget.
    const port = newPort();
    const before = fake.callsOf('chat.startStream').length;
    expect(await port.startNativeStream(place('C0SHORT', '200.1'), { text: '' })).toBeUndefined();
    expect(fake.callsOf('chat.startStream')).toHaveLength(before);
    expect(fake.rateLimited).toBe(0);
    // The refused start spent no post token of the channel, so the post that replaces it goes at once
    // (a spent token would hold it for the channel's post interval): the channel's token is still free.
    expect(await drain(`slack:${fake.team}:postMessage:C0SHORT`, POST_BUDGET.limit)).toBe(POST_BUDGET.limit);
  });

  test('a native stream starts only while its stop is assured: stops taken and stops awaited leave room', async () => {
    // A Slack of its own: its Tier 2 buckets are spent here, not the other tests'.
    const ws = 'T0STOPS';
    const slack = await new FakeSlack({ team: ws }).start();
    const portOn = (): SlackPort => {
      const p = slackPortOn(slack, store, () => ws);
      ports.push(p);
      return p;
    };
    try {
      const port = portOn();
      const orphan = await portOn().startNativeStream(place('C0STOPS', '500.1', ws), { text: '' });
      // Stops that no start of this process paid for (a stream stopped again, as recovery may): 15
      // of the workspace's 20 chat.stopStream tokens are spent within the minute.
      for (let i = 0; i < 15; i++) await port.stopNativeStream(orphan!.ref, { text: 'done' });
      const streams = [];
      for (let i = 0; i < 8; i++)
        streams.push(await port.startNativeStream(place(`C0STOPS${i}`, '500.2', ws), { text: '' }));
      // Five more stops fit in the minute: five streams start, the rest use chat.update at once,
      // though chat.startStream still has tokens to give.
      const started = streams.filter((s) => s !== undefined);
      expect(started).toHaveLength(5);
      expect(port.gateway.finalsAwaited(`slack:${ws}:chat.stopStream`)).toBe(5);
      await Promise.all(started.map((s) => s!.stop({ text: 'the end' })));
      // Every stop found its token: nothing was refused, and the reservations are spent.
      for (const s of started) expect(slack.message(s!.ref.place.channel, s!.ref.id)!.text).toBe('the end');
      expect(port.gateway.finalsAwaited(`slack:${ws}:chat.stopStream`)).toBe(0);
      expect(slack.callsOf('chat.startStream')).toHaveLength(6);
      expect(await drain(`slack:${ws}:chat.startStream`, STREAM_BUDGETS.start.limit)).toBe(
        STREAM_BUDGETS.start.limit - 6,
      );
      expect(slack.rateLimited).toBe(0);
    } finally {
      await slack.close();
    }
  });

  test('button updates spend the chat.update budget and coalesce per message', async () => {
    const port = newPort();
    const a = await port.post({ surface: 'slack', workspace: fake.team, channel: 'C0PAGES' }, { text: 'page 1' });
    const b = await port.post({ surface: 'slack', workspace: fake.team, channel: 'C0PAGES2' }, { text: 'page 1' });
    const before = fake.callsOf('chat.update').length;
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => port.update(a, { text: `page ${i + 2}` })),
      port.update(b, { text: 'page 2' }),
    ]);
    expect(fake.message('C0PAGES', a.id)!.text).toBe('page 11');
    expect(fake.message('C0PAGES2', b.id)!.text).toBe('page 2');
    const made = fake.callsOf('chat.update').length - before;
    // One call carries the first click; the nine that waited behind it coalesce into one more.
    expect(made).toBeLessThanOrEqual(3);
    expect(await drain(`slack:${fake.team}:chat.update`, 50)).toBe(50 - made);
    expect(fake.rateLimited).toBe(0);
  });

  test('a stream is addressed to whom the answer is for, in a channel thread; a DM stream names no one', async () => {
    const port = newPort();
    const channel: Place = { surface: 'slack', workspace: 'T0RECIP', channel: 'C0RECIP' };
    const { thread } = await port.startThread(channel, { text: 'root' }, 'root');
    const asker = { id: 'U0ASKER', name: 'Ada' };
    const s1 = await port.startNativeStream(thread, { text: '' }, { for: asker });
    const s2 = await port.startNativeStream(place('D0RECIP', '300.1', 'T0RECIP'), { text: '' }, { for: asker });
    const args = (ts: string) => fake.callsOf('chat.startStream').find((c) => c.response.ts === ts)!.args;
    expect(args(s1!.ref.id)).toMatchObject({ recipient_user_id: 'U0ASKER', recipient_team_id: 'T0RECIP' });
    expect(args(s2!.ref.id)).not.toHaveProperty('recipient_user_id');
    // Nothing about recipients is kept: whoever answers the thread is told by the request.
    expect(await store.keys('slack:recipient:')).toEqual([]);
    await s1!.stop({ text: '' });
    await s2!.stop({ text: '' });
  });

  test('stopNativeStream finishes a stream another process left open, and falls back to chat.update when it is gone', async () => {
    const dead = newPort();
    const thread = place('C0ORPHAN', '400.1', 'T0ORPHAN');
    const stream = await dead.startNativeStream(thread, { text: '' });
    await stream!.append('Partial ans');
    const final = {
      text: 'Partial ans',
      notice: 'Answer interrupted.',
      buttons: [{ action: 'answer.retry', label: 'Retry', value: 'r1' }],
    };
    const heir = newPort();
    await heir.stopNativeStream(stream!.ref, final);
    const msg = fake.message('C0ORPHAN', stream!.ref.id)!;
    expect(msg.streaming).toBe(false);
    expect(msg.text).toBe('Partial ans');
    expect(JSON.stringify(msg.blocks)).toContain('Retry');
    expect(JSON.stringify(msg.blocks)).toContain('Answer interrupted.');
    const stops = fake.callsOf('chat.stopStream').filter((c) => c.args.ts === stream!.ref.id);
    expect(stops.map((c) => c.response.ok)).toEqual([true]);

    // Gone already (stopped): chat.update alone makes the message exactly the final.
    await heir.stopNativeStream(stream!.ref, { text: 'Partial answer, done' });
    expect(fake.message('C0ORPHAN', stream!.ref.id)!.text).toBe('Partial answer, done');
    expect(
      fake
        .callsOf('chat.stopStream')
        .filter((c) => c.args.ts === stream!.ref.id)
        .at(-1)!.response.error,
    ).toBe('message_not_in_streaming_state');
    // Each stop spent a Tier 2 token and each chat.update one of the workspace's: all through the gateway.
    expect(await drain('slack:T0ORPHAN:chat.stopStream', STREAM_BUDGETS.stop.limit)).toBe(
      STREAM_BUDGETS.stop.limit - 2,
    );
    expect(await drain('slack:T0ORPHAN:chat.update', 50)).toBe(48);
    expect(fake.rateLimited).toBe(0);
  });

  test('stopNativeStream keepStreamed: the stream of a crashed answer keeps the text it showed past the record, notice and Retry under it', async () => {
    const dead = newPort();
    const thread = place('C0KEEP', '500.1', 'T0KEEP');
    const stream = await dead.startNativeStream(thread, { text: '' });
    // The record (what recovery is handed) lags what the stream shows: appends since its last write.
    await stream!.append('Partial ');
    await stream!.append('answer that grew after the record');
    const recorded = {
      text: 'Partial ',
      notice: 'Answer interrupted.',
      buttons: [{ action: 'answer.retry', label: 'Retry', value: 'r2' }],
    };
    const heir = newPort();
    await heir.stopNativeStream(stream!.ref, recorded, { keepStreamed: true });
    const msg = fake.message('C0KEEP', stream!.ref.id)!;
    expect(msg.streaming).toBe(false);
    // What the user saw stays, word for word: no text sent with the stop, no chat.update after it.
    expect(msg.text).toBe('Partial answer that grew after the record');
    expect(msg.history.at(-1)).toBe('Partial answer that grew after the record');
    expect(JSON.stringify(msg.blocks)).toContain('Retry');
    expect(JSON.stringify(msg.blocks)).toContain('Answer interrupted.');
    const stop = fake.callsOf('chat.stopStream').find((c) => c.args.ts === stream!.ref.id);
    expect(stop?.args).not.toHaveProperty('markdown_text');
    expect(fake.callsOf('chat.update').filter((c) => c.args.ts === stream!.ref.id)).toEqual([]);

    // Gone already: chat.update with the recorded message is the fallback.
    await heir.stopNativeStream(stream!.ref, { text: 'Partial answer, done' }, { keepStreamed: true });
    expect(fake.message('C0KEEP', stream!.ref.id)!.text).toBe('Partial answer, done');
  });
});
