/**
 * A 429 storm from Slack while 5 answers stream at once: Slack answers 429 with Retry-After to a
 * run of calls of every method the answers use. The bridge waits at least Retry-After before it
 * sends that call again, and loses no final text: every answer ends exactly equal to the service's.
 */
import type { SlackCall } from '../../../fakes/fake-slack';
import { rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';

const RETRY_AFTER_S = 1;
/** Timer and clock granularity between the fake's clock reads. */
const CLOCK_SLACK_MS = 25;

/** The place a call targets: Slack's limits (and Retry-After) apply per method and channel (and message). */
function placeOf(c: SlackCall): string {
  const channel = String(c.args.channel ?? c.args.channel_id ?? '');
  const ts = c.method === 'chat.postMessage' || c.method === 'chat.startStream' ? '' : String(c.args.ts ?? '');
  return `${c.method}|${channel}|${ts}`;
}

/** Calls sent to the same method and place sooner than Retry-After after a 429 there. */
function retryAfterViolations(calls: SlackCall[]): string[] {
  const out: string[] = [];
  calls.forEach((c, i) => {
    if (c.status !== 429) return;
    const wait = RETRY_AFTER_S * 1000;
    const next = calls.slice(i + 1).find((d) => placeOf(d) === placeOf(c));
    if (next && next.at - c.at < wait - CLOCK_SLACK_MS) out.push(`${placeOf(c)}: again after ${next.at - c.at} ms`);
  });
  return out;
}

describe('Slack e2e faults: a 429 storm during 5 concurrent answers', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 8 }));

  async function storm(tag: string, forced: Record<string, number>): Promise<void> {
    // Long answers (several messages each, streamed for seconds) so that every method is in use.
    const asks = [1, 2, 3, 4, 5].map((i) => ({
      question: `Tell me about all listings, the long answer (${tag} storm ${i})`,
      channel: `C0${tag.toUpperCase()}${i}`,
    }));
    const from = e.fake.calls.length;
    const limitedBefore = e.fake.rateLimited;
    for (const [method, count] of Object.entries(forced)) e.fake.force429(method, count, RETRY_AFTER_S);
    const acks = await Promise.all(
      asks.map((a) => e.driver.command('/ask', a.question, { user: 'U0USER1', channel: a.channel })),
    );
    for (const ack of acks) expect(ack.status).toBe(200);
    // Every /ask was acknowledged within Slack's 3 s window (the driver records any later answer).
    expect(e.driver.lateAcks).toEqual([]);
    await Promise.all(
      asks.map(async (a) => {
        const root = await waitFor(() => rootFor(e.fake, a.channel, a.question), `the root of ${a.question}`, 30_000);
        const { messages, answer } = await waitForAnswer(e, a.channel, root.ts, a.question, 60_000);
        expect(answer.length).toBeGreaterThan(0);
        for (const m of messages) expect(m.streaming).toBeFalsy();
      }),
    );
    await e.app.bridge.conversations.idle();
    const calls = e.fake.calls.slice(from);
    // The storm happened: every forced 429 was answered.
    const stormed = Object.values(forced).reduce((a, b) => a + b, 0);
    expect(e.fake.rateLimited - limitedBefore).toBeGreaterThanOrEqual(stormed);
    expect(retryAfterViolations(calls)).toEqual([]);
    // Nobody was told that something went wrong.
    expect(e.fake.ephemerals.filter((m) => asks.some((a) => a.channel === m.channel))).toEqual([]);
  }

  // The methods these answers use: 5 answers sharing chat.update's workspace budget finish before
  // an interim append is due, so the native run is stormed on startStream, stopStream and postMessage.
  test('native streaming: startStream, stopStream and postMessage storms', async () => {
    await storm('native', { 'chat.postMessage': 4, 'chat.startStream': 3, 'chat.stopStream': 4 });
  }, 120_000);

  test('chat.update relay: postMessage and chat.update storms', async () => {
    e.fake.setStreaming('feature_not_enabled');
    await storm('update', { 'chat.postMessage': 4, 'chat.update': 8 });
  }, 120_000);
});
