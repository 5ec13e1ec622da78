import { ask, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { wordGroups } from '../../../src/local-service/answerer/format';
import { answerIn } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

const TYPING = /\s*\u258d$/;

describe('Discord: streaming by edits, logs without the token, bad gateway payloads', () => {
  // The test reads what the bridge logged (trace level) for the token.
  const logLines: string[] = [];
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 15, logLines }));

  test('while it streams, every version of a message starts with its final text', async () => {
    const question = 'Tell me about every listing, the long answer';
    const { threadId } = await ask(e, question);
    const { messages } = await waitForAnswer(e, threadId, question, 60_000);
    const first = messages[0]!;
    expect(first.history.length).toBeGreaterThan(2);
    for (const m of messages) {
      // Every version, core's placeholder (empty text with the typing mark) included.
      for (const version of m.history) {
        const shown = version.replace(TYPING, '');
        expect(m.content.startsWith(shown.trimEnd())).toBe(true);
      }
      expect(m.content).not.toMatch(TYPING);
    }
    const gaps = first.historyAt.slice(1).map((t, i) => t - first.historyAt[i]!);
    process.stdout.write(
      `discord streaming: ${first.history.length} versions of the first message, gaps ${gaps.join(', ')} ms\n`,
    );
    expect(e.fake.rateLimitHits).toBe(0);
  }, 90_000);

  test('malformed gateway dispatches are ignored and the bot keeps serving', async () => {
    const garbage: Array<[string, unknown]> = [
      ['MESSAGE_CREATE', null],
      ['MESSAGE_CREATE', { id: 5 }],
      ['MESSAGE_CREATE', { id: '1', channel_id: e.general.id, guild_id: e.fake.guildId, author: null, content: 7 }],
      ['MESSAGE_CREATE', 'nonsense'],
      ['THREAD_CREATE', { id: null }],
      ['UNKNOWN_EVENT', { a: 1 }],
    ];
    for (const [t, d] of garbage) e.fake.dispatch(t, d);
    const question = 'Still there? homes in Seattle';
    const { threadId } = await ask(e, question);
    // Answered, and about what was asked: the Seattle listings.
    expect(await answerIn(e, threadId, question)).toMatch(/^I found \d+ homes in Seattle:/);
  }, 30_000);

  test('the token never appears in the logs (trace level included)', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(e.fake.token);
  });
});

/**
 * A lone answer of about 3 s visibly streams on Discord: counted from the fake's record of every
 * content the message showed (the stream's length comes from the service's fragments).
 */
describe('Discord: a lone answer streams visibly', () => {
  // About 3 s in all (the lone answer). At 180 ms a fragment, the second interim (the first
  // comes 1 s in, the next about 1 s later) once fell after the final on a loaded CI run.
  const FRAGMENT_MS = 220;
  const QUESTION = 'Which homes are for rent in Austin?';
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: FRAGMENT_MS }));

  test('at least 2 distinct partial texts before the final, every one a prefix of it', async () => {
    const { threadId } = await ask(e, QUESTION);
    const { answer, messages } = await waitForAnswer(e, threadId, QUESTION, 40_000);
    expect(wordGroups(answer).length * FRAGMENT_MS).toBeGreaterThanOrEqual(2_500);
    expect(messages).toHaveLength(1);
    const m = messages[0]!;
    const shown = m.history.map((v) => v.replace(TYPING, '').trimEnd());
    const partials = new Set(shown.filter((t) => t !== '' && t !== m.content));
    expect(partials.size).toBeGreaterThanOrEqual(2);
    for (const t of shown) expect(m.content.startsWith(t)).toBe(true);
    expect(e.fake.rateLimitHits).toBe(0);
  }, 60_000);
});
