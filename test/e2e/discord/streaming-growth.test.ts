/**
 * What a reader sees while an answer streams, from the fake's edit history of every message of the
 * answer: each version (the first, core's empty placeholder with the typing mark, included) is a
 * prefix of the message's final content, and the visible answer grows about once a second or faster.
 */
import { ask, discordRateLimitEvents, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import type { FakeMessage } from '../../../fakes/fake-discord';
import { useStarted } from '../../support/server-setup';

const TYPING = /\s*\u258d$/;
/** "About once a second": the bot's budget is one call per second per channel; allow scheduling jitter. */

function shown(version: string): string {
  return version.replace(TYPING, '');
}

describe('Discord: a streaming answer only ever grows towards its final text', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 15 }));

  function checkPrefixes(messages: FakeMessage[]): string[] {
    const problems: string[] = [];
    messages.forEach((m, index) => {
      m.history.forEach((version, v) => {
        const text = shown(version).trimEnd();
        if (!m.content.startsWith(text)) {
          problems.push(
            `message ${index} version ${v}/${m.history.length - 1} (${text.length} chars) is not a prefix of its final text (${m.content.length} chars): ends "${JSON.stringify(text.slice(-60))}", final has "${JSON.stringify(m.content.slice(Math.max(0, text.length - 60), text.length + 20))}"`,
          );
        }
      });
      if (TYPING.test(m.content)) problems.push(`message ${index} still shows the typing mark`);
    });
    return problems;
  }

  for (const [name, question] of [
    ['a long answer split over several messages', 'Tell me about every listing, the long answer'],
    ['a short answer in one message', 'Which homes are for rent in Austin?'],
  ] as const) {
    test(`${name}: every version of every message is a prefix of its final content, and it grows every ~1 s`, async () => {
      const { threadId } = await ask(e, question);
      const { messages, answer } = await waitForAnswer(e, threadId, question, 60_000);
      expect(messages.map((m) => m.content).join('')).toBe(answer);
      expect(messages[0]!.history.length).toBeGreaterThan(1);
      // The placeholder is text-free: only the typing mark.
      expect(shown(messages[0]!.history[0]!)).toBe('');
      expect(checkPrefixes(messages)).toEqual([]);

      // The visible answer (all its messages together) over time: it never shrinks, and until it is
      // complete it keeps growing (bounds below).
      const events = messages
        .flatMap((m, i) => m.history.map((v, j) => ({ at: m.historyAt[j]!, index: i, text: shown(v).trimEnd() })))
        .sort((a, b) => a.at - b.at);
      const current = messages.map(() => '');
      const marked = messages.map(() => true);
      let last = 0;
      let lastGrowthAt = events[0]!.at;
      let sealsSinceGrowth = 0;
      const gaps: Array<{ ms: number; seals: number }> = [];
      const complete = answer.replace(/\s+/g, '').length;
      for (const ev of events) {
        const version =
          messages[ev.index]!.history[events.filter((x) => x.index === ev.index && x.at <= ev.at).length - 1]!;
        const wasMarked = marked[ev.index]!;
        marked[ev.index] = TYPING.test(version);
        current[ev.index] = ev.text;
        const visible = current.join('').replace(/\s+/g, '').length;
        expect(visible).toBeGreaterThanOrEqual(last);
        if (visible > last) {
          gaps.push({ ms: ev.at - lastGrowthAt, seals: sealsSinceGrowth });
          lastGrowthAt = ev.at;
          sealsSinceGrowth = 0;
        } else if (wasMarked && !marked[ev.index]) {
          // A finished message losing its typing mark: an edit that shows nothing new.
          sealsSinceGrowth += 1;
        }
        last = visible;
        if (visible >= complete) break;
      }
      expect(last).toBe(complete);
      process.stdout.write(
        `discord growth (${name}): ${messages.length} messages, ${events.length} versions, gaps ${gaps.map((g) => `${g.ms}${g.seals ? ` (+${g.seals} seal)` : ''}`).join(', ')} ms\n`,
      );
      // It visibly grows, not placeholder-then-whole: a long answer grows several times before it is complete.
      // How far apart they come is a duration, which the benchmark measures (npm run bench); a test
      // on this shared machine counts instead.
      expect(gaps.length).toBeGreaterThanOrEqual(messages.length > 1 ? 3 : 1);
      expect(e.fake.rateLimitHits).toBe(0);
      // A long answer keeps its thread's bucket busy for many seconds: discord.js never had to hold a call.
      expect(discordRateLimitEvents(e)).toBe(0);
    }, 90_000);
  }
});
