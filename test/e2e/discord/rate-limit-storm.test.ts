/**
 * A 429 storm while several answers stream: the fake refuses a burst of message creates and edits
 * with 429, Retry-After and Discord's X-RateLimit headers. The bot must wait out each Retry-After
 * on that route and still end every answer with the service's exact text.
 */
import { ask, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import type { RecordedCall } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';

const TYPING = /\u258d/;
const STORM = 10;

/** Discord's route: method and path with the message id as a parameter (the channel is the major one). */
function routeOf(c: RecordedCall): string {
  return `${c.method} ${c.path.replace(/\/messages\/\d+$/, '/messages/:id')}`;
}

describe('Discord: a 429 storm while answers stream', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 10 }));

  test('Retry-After is obeyed on every refused route and no answer loses text', async () => {
    const questions = ['Austin', 'Denver', 'Seattle', 'Miami'].map(
      (city, i) => `Storm ${i}: give me the long answer, every listing in ${city}`,
    );
    const started = await Promise.all(questions.map((q) => ask(e, q)));
    const threads = new Set(started.map((s) => s.threadId));
    // The storm starts once the answers are streaming (an edit went out in one of the threads).
    const firstEdit = await waitFor(
      () =>
        e.fake.calls.find(
          (c) => c.method === 'PATCH' && [...threads].some((t) => c.path.startsWith(`/channels/${t}/messages/`)),
        ),
      'the first streamed edit',
      15_000,
      e.fake.changes,
    );
    expect(firstEdit.status).toBe(200);
    const stormFrom = Date.now();
    e.fake.force429({
      count: STORM,
      retryAfterSec: 1,
      match: (_m, path) => [...threads].some((t) => path.startsWith(`/channels/${t}/`)),
    });

    const results = await Promise.all(
      started.map(({ threadId }, i) => waitForAnswer(e, threadId, questions[i]!, 60_000)),
    );
    expect(e.fake.forced429Left).toBe(0);

    const refused = e.fake.calls.filter((c) => c.status === 429);
    expect(refused.length).toBe(STORM);
    for (const r of refused) {
      expect(r.at).toBeGreaterThanOrEqual(stormFrom);
      expect(r.retryAfterMs).toBe(1000);
      // Nothing was sent on that route (that channel's creates or edits) until Retry-After had passed.
      const route = routeOf(r);
      const early = e.fake.calls.filter(
        (c) => c !== r && routeOf(c) === route && c.at >= r.doneAt && c.at < r.doneAt + r.retryAfterMs!,
      );
      expect(early.map((c) => `${c.method} ${c.path} ${c.at - r.doneAt} ms after the 429`)).toEqual([]);
    }
    // Each refused call was sent again later and went through.
    for (const r of refused) {
      const retried = e.fake.calls.find(
        (c) => c.method === r.method && c.path === r.path && c.at >= r.doneAt + r.retryAfterMs! && c.status === 200,
      );
      expect(retried).toBeDefined();
    }

    for (const r of results) {
      expect(r.messages.map((m) => m.content).join('')).toBe(r.answer);
      for (const m of r.messages) expect(m.content).not.toMatch(TYPING);
      expect(r.answer.length).toBeGreaterThan(500);
    }
  }, 90_000);
});
