import { ask, startDiscordE2E, waitForAnswer, expectAcknowledged } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

describe('Discord: long and concurrent answers', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 5 }));

  test('an answer of several thousand characters is split into messages of at most 2,000 that concatenate to it exactly', async () => {
    const question = 'Give me the long answer: every listing you have';
    const { threadId } = await ask(e, question);
    const { answer, messages } = await waitForAnswer(e, threadId, question, 40_000);
    expect(answer.length).toBeGreaterThan(6000);
    expect(messages.length).toBeGreaterThanOrEqual(Math.ceil(answer.length / 2000));
    for (const m of messages) expect([...m.content].length).toBeLessThanOrEqual(2000);
    expect(
      messages
        .map((m) => m.content.trim())
        .join('')
        .replace(/\s+/g, ''),
    ).toBe(answer.replace(/\s+/g, ''));
    for (const m of messages) expect(m.embeds).toEqual([]);
    expect(e.fake.rateLimitHits).toBe(0);
  }, 60_000);

  test('10 concurrent /ask answers all end exact, with no 429', async () => {
    const cities = ['Austin', 'Denver', 'Seattle', 'Miami'];
    const questions = Array.from(
      { length: 10 },
      (_, i) => `Concurrent ${i}: homes for sale in ${cities[i % cities.length]}?`,
    );
    const started = await Promise.all(questions.map((q) => ask(e, q)));
    const results = await Promise.all(
      started.map(({ threadId }, i) => waitForAnswer(e, threadId, questions[i]!, 40_000)),
    );
    for (const r of results) expect(r.messages.map((m) => m.content).join('')).toBe(r.answer);
    for (const { rec, threadId } of started) expectAcknowledged(e, rec, threadId);
    expect(e.fake.rateLimitHits).toBe(0);
    expect(e.fake.calls.filter((c) => c.status === 429)).toEqual([]);
  }, 60_000);
});
