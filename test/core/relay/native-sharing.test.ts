/**
 * Native streams share the append budget: once an answer's stream is live, its final is registered
 * on the budget its edits spend now (the appends), so interims there are spaced by the streams that
 * share it, not by the chat.update answers.
 */
import { BudgetScheduler } from '../../../src/core/relay/scheduler';
import { Relay } from '../../../src/core/relay/relay';
import type { Place, RateBudget } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { TEST_SURFACE, TestSurface } from '../../support/test-surface';
import { FakeAnswerStream, silentLog } from './fake-stream';
import { waitFor } from '../../support/wait-for';

const UPDATE: RateBudget = { key: 'update', limit: 50, windowMs: 60_000 };
const APPEND: RateBudget = { key: 'append', limit: 100, windowMs: 60_000 };

/** Like the Slack port: a thread with a live native stream edits by appending, on its own budget. */
class AppendingSurface extends TestSurface {
  override budgets(op: 'post' | 'edit', place: Place): RateBudget[] {
    if (op === 'post') return [];
    const live = this.nativeStreams.some((s) => s.ref.place.thread === place.thread && s.stoppedAt === undefined);
    return [live ? APPEND : UPDATE];
  }
}

describe('Relay with native streams', () => {
  it('registers a live stream on the append budget, and releases it with the answer', async () => {
    const store = new SqliteStore(':memory:');
    const scheduler = new BudgetScheduler({ store, log: silentLog });
    const relay = new Relay({ store, scheduler, log: silentLog, instanceId: 'inst-n' });
    const surface = new AppendingSurface({ native: { ttlMs: 600_000 } });
    try {
      const streams = [0, 1, 2].map(() => new FakeAnswerStream());
      const runs = streams.map((events, i) =>
        relay.run({
          surface,
          place: { surface: TEST_SURFACE, workspace: 'W', channel: 'C', thread: `T${i}` },
          events,
          finalButtons: [],
          retry: { action: 'answer.retry', value: `q${i}` },
          idleTimeoutMs: 5_000,
          answerKey: `native-share-${i}`,
        }),
      );
      await waitFor(() => surface.nativeStreams.length === 3 && scheduler.finalsAwaited('append') === 3, 'surface.nativeStreams.length === 3 && scheduler.finalsAwaited(\'appe...');
      expect(scheduler.finalsAwaited('update')).toBe(0);
      // 100 a minute shared by three streams.
      expect(scheduler.interimSpacingMs([APPEND])).toBe(1_800);
      for (const [i, s] of streams.entries()) {
        s.push(`answer ${i} is here. `);
        s.final();
      }
      const results = await Promise.all(runs);
      for (const r of results) expect(r.status).toBe('complete');
      expect(scheduler.finalsAwaited('append')).toBe(0);
      expect(scheduler.finalsAwaited('update')).toBe(0);
    } finally {
      scheduler.close();
      await store.close();
    }
  });
});
