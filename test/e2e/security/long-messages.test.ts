/**
 * Two long messages do not freeze the bridge. A user posts two messages of 39,000 characters (one
 * unbroken word each: Slack keeps up to 40,000) in their thread and runs `/handoff`: the ticket is
 * posted with its lead summary and transcript, and the process stays responsive throughout. No
 * duration is asserted: the event loop is watched (perf_hooks.monitorEventLoopDelay, and a tick
 * every 20 ms) and the stalls over a bound are counted; there must be none. Before the patterns were
 * linear, one such word cost the lead summary about 5 s, on every ticket render.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { shown } from '../../../fakes/slack-blocks';
import { HANDOFF_CHANNEL, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { firstLineOf } from '../../support/slack-flows';
import { useStarted } from '../../support/server-setup';

const CHANNEL = 'C0LONG';
/** A stall: the event loop held for longer than this (a loaded test machine stays far below it). */
const STALL_MS = 1_000;

/** Counts the gaps between ticks of a 20 ms interval longer than STALL_MS. */
function stallCounter(): { stop(): { stalls: number; worstMs: number } } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let last = performance.now();
  let stalls = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last > STALL_MS) stalls++;
    last = now;
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      histogram.disable();
      return { stalls, worstMs: Math.round(histogram.max / 1e6) };
    },
  };
}

describe('Slack: two 39,000-character messages, then /handoff', () => {
  const e = useStarted(() => startSlackE2E());

  test('the ticket is posted and the event loop never stalls', async () => {
    const watch = stallCounter();
    const question = 'Homes for sale in Austin?';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: CHANNEL });
    const root = await waitFor(() => rootFor(e.fake, CHANNEL, question), 'the root');
    const { messages } = await waitForAnswer(e, CHANNEL, root.ts, question);
    expect(firstLineOf(messages)).toMatch(/^I found \d+ homes for sale in Austin:$/);

    const base = Math.floor(Date.now() / 1000);
    const words = ['a'.repeat(39_000), `${'a@1,'.repeat(9_750)}`];
    for (const [i, word] of words.entries()) {
      expect(word).toHaveLength(39_000);
      await e.driver.event({
        type: 'message',
        channel: CHANNEL,
        channel_type: 'channel',
        user: 'U0USER1',
        text: word,
        ts: `${base}.${String(800001 + i)}`,
        thread_ts: root.ts,
      });
      const answered = await waitFor(() => e.storedAnswers(word).at(-1), `the answer to long message ${i + 1}`, 30_000);
      expect(answered.length).toBeGreaterThan(0);
    }
    // Responsive while the bridge works: the health check answers.
    expect((await fetch(`${e.app.url}/healthz`)).status).toBe(200);

    await e.driver.command('/handoff', 'Please call me', { user: 'U0USER1', channel: CHANNEL });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => shown(m.text).includes('Please call me')),
      'the ticket',
      30_000,
    );
    expect(shown(ticket.text)).toContain('Recent conversation:');
    expect(shown(ticket.text)).toContain('E-mail: none given');
    expect((await fetch(`${e.app.url}/healthz`)).status).toBe(200);
    const { stalls, worstMs } = watch.stop();
    expect({ stalls, worstMs: worstMs > STALL_MS ? worstMs : 'under the bound' }).toEqual({
      stalls: 0,
      worstMs: 'under the bound',
    });
  });
});
