/**
 * Native streams share the append budget: once an answer's stream is live, its final is registered
 * on the budget its edits spend now (the appends), so interims there are spaced by the streams that
 * share it, not by the chat.update answers.
 */
import { FakeAnswerStream } from './fake-stream';
import { waitFor } from '../../../fakes/wait-for';
import { RelayTestbed } from './testbed';
import { TEST_SURFACE } from '../../support/test-surface';

describe('Relay with native streams', () => {
  it('registers a live stream on the append budget, and releases it with the answer', async () => {
    const bed = new RelayTestbed();
    const relay = bed.relay('inst-n');
    // Like the Slack port: a thread with a live native stream edits by appending, on its own budget.
    const surface = bed.surface({
      native: { ttlMs: 600_000 },
      budget: { edit: { limit: 50, windowMs: 60_000 }, append: { limit: 100, windowMs: 60_000 } },
    });
    const scheduler = surface.scheduler!;
    const APPEND = surface.budgetFor('append', { surface: TEST_SURFACE, workspace: 'W', channel: 'C' });
    try {
      const streams = [0, 1, 2].map(() => new FakeAnswerStream());
      const runs = streams.map((events, i) =>
        relay.run({
          surface,
          place: { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: `T${i}` },
          events,
          finalButtons: [],
          retry: { action: 'answer.retry', value: `q${i}` },
          native: surface.streaming !== undefined,
          answerKey: `native-share-${i}`,
        }),
      );
      await waitFor(
        () => surface.nativeStreams.length === 3 && scheduler.finalsAwaited('test:append:W') === 3,
        'surface.nativeStreams.length === 3 && scheduler.finalsAwaite',
      );
      expect(scheduler.finalsAwaited('test:edit:W')).toBe(0);
      // 100 a minute shared by three streams: planned from what it holds (the spacing of three is
      // wider than the spacing of one).
      expect(scheduler.interimSpacingMs(APPEND)).toBeGreaterThan(0);
      for (const [i, s] of streams.entries()) {
        s.push(`answer ${i} is here. `);
        s.final();
      }
      const results = await Promise.all(runs);
      for (const r of results) expect(r.status).toBe('complete');
      expect(scheduler.finalsAwaited('test:append:W')).toBe(0);
      expect(scheduler.finalsAwaited('test:edit:W')).toBe(0);
    } finally {
      await bed.close();
    }
  });

  it('sends no append that the final overtook: the stop carries the text it would have shown', async () => {
    const bed = new RelayTestbed();
    const relay = bed.relay('inst-o');
    const surface = bed.surface({
      native: { ttlMs: 600_000 },
      budget: { edit: { limit: 50, windowMs: 60_000 }, append: { limit: 100, windowMs: 60_000 } },
    });
    const scheduler = surface.scheduler!;
    try {
      const events = new FakeAnswerStream();
      const run = relay.run({
        surface,
        place: { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: 'T-overtaken' },
        events,
        finalButtons: [],
        retry: { action: 'answer.retry', value: 'q' },
        native: surface.streaming !== undefined,
        answerKey: 'native-overtaken',
      });
      await waitFor(() => surface.nativeStreams.length === 1, 'the stream started');
      // Text after the start: its append waits in the gateway for the answer's first planned turn
      // (an answer's first interim waits until it is a second old).
      events.push('Three bedrooms in Austin, ');
      await waitFor(() => scheduler.pending === 1, 'the append waits for its turn');
      events.push('close to the lake.');
      events.final();
      const result = await run;
      expect(result.status).toBe('complete');
      const stream = surface.nativeStreams[0]!;
      // The waiting append went when the final came: with nothing to show before the stop, no call.
      expect(surface.count('append')).toBe(0);
      expect(stream.finalMessage?.text).toBe('Three bedrooms in Austin, close to the lake.');
    } finally {
      await bed.close();
    }
  });
});
