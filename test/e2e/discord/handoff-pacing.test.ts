/**
 * Core posts handoff notices, relayed messages and ticket updates outside the relay. On Discord they
 * must spend the same per-channel budget as the answer streaming in that channel (posts are paced in
 * the port, button updates and core's edits through the edit budget), or a notice lands right after
 * a streamed edit and the channel's 5-per-5-s bucket runs dry: a 429, or discord.js holding calls.
 */
import {
  ask,
  botMessagesIn,
  discordRateLimitEvents,
  sameAnswer,
  startDiscordE2E,
  handoffIn,
} from '../../support/discord-e2e';
import type { FakeMessage, RecordedCall } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import {
  botSays,
  firstLine,
  labelsWithout,
  textMatching,
  ticketFor,
  ticketThreadOf,
} from '../../support/discord-flows';

const TYPING = /\u258d/;
/** Two creates/edits of one channel never go out closer than this (the budget is one a second, less arrival jitter). */
const MIN_CHANNEL_GAP_MS = 500;

function isChannelMessageCall(c: RecordedCall, channelId: string): boolean {
  return (
    (c.method === 'POST' || c.method === 'PATCH') &&
    new RegExp(`^/channels/${channelId}/messages(/\\d+)?$`).test(c.path)
  );
}

describe('Discord: a handoff round trip while an answer streams in the same thread', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 15 }));

  test('every notice arrives, no 429, discord.js never waits, and the answer still ends exact', async () => {
    const question = 'Tell me about every listing, the long answer';
    const { threadId } = await ask(e, question);
    const firstEdit = await waitFor(
      () => e.fake.calls.find((c) => c.method === 'PATCH' && c.path.startsWith(`/channels/${threadId}/messages/`)),
      'the first streamed edit',
      15_000,
      e.fake.changes,
    );
    expect(firstEdit.status).toBe(200);

    // Ask for a human mid-stream: the notice goes to the thread the answer is streaming in.
    handoffIn(e, threadId, 'Pacing: a person please');
    const notice = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => e.fake.buttons(m).some((b) => b.label === 'Cancel')),
      'the handoff notice',
      15_000,
      e.fake.changes,
    );
    const streamingAtNotice = botMessagesIn(e.fake, threadId).some((m) => m !== notice && TYPING.test(m.content));
    const ticket = await ticketFor(e, 'Pacing: a person please');
    const ticketThread = await ticketThreadOf(e, ticket);

    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await labelsWithout(e, ticket, 'Claim', 'the claim shown on the ticket')).toContain('Close');
    expect(await botSays(e, ticketThread.id, 'claimed this ticket', 'the agents told of the claim')).toMatch(
      /^agent-smith claimed this ticket\. Their messages in this thread go to ada/,
    );
    expect(await botSays(e, threadId, 'has joined', 'the user told who joined')).toBe(
      'agent-smith (agent) has joined the conversation and will answer you here.',
    );

    // Bursts both ways: each relayed message is a post of core's, outside the relay.
    const fromAgent = ['Pacing agent 1: hello', 'Pacing agent 2: let me check', 'Pacing agent 3: found it'];
    const fromUser = ['Pacing user 1: thanks', 'Pacing user 2: and parking?'];
    for (const content of fromAgent) e.fake.userMessage({ channelId: ticketThread.id, member: e.agent, content });
    for (const content of fromUser) e.fake.userMessage({ channelId: threadId, member: e.user, content });
    for (const text of fromAgent)
      expect(await botSays(e, threadId, text, `"${text}" relayed to the user`, 20_000)).toBe(
        `*agent-smith (agent):* ${text}`,
      );
    for (const text of fromUser)
      expect(await botSays(e, ticketThread.id, text, `"${text}" relayed to the agents`, 20_000)).toBe(`*ada:* ${text}`);

    // Cancel with the notice's button (an interaction in the streaming thread): both sides told.
    e.fake.clickButtonLabelled(notice, 'Cancel', e.user);
    expect(await botSays(e, threadId, 'Handoff cancelled', 'the user told the handoff ended', 20_000)).toBe(
      "Handoff cancelled. I'm back: ask me anything here.",
    );
    expect(
      await botSays(e, ticketThread.id, 'cancelled the request', 'the agents told the handoff ended', 20_000),
    ).toBe('ada cancelled the request. The bot answers ada again.');
    expect(await textMatching(e, () => firstLine(ticket), /^Cancelled/, 'the ticket shown cancelled', 20_000)).toMatch(
      /^Cancelled by ada at \d\d:\d\d UTC/,
    );
    expect(e.fake.buttons(ticket)).toEqual([]);

    // The answer, its messages told apart from the notices around them, ends with the service's text.
    const notices: FakeMessage[] = [];
    const answer = await waitFor(
      () => {
        const stored = e.storedAnswers(question).at(-1);
        if (stored === undefined) return undefined;
        notices.length = 0;
        const parts = botMessagesIn(e.fake, threadId).filter((m) => {
          const isNotice = m === notice || /has joined|\(agent\):|Handoff cancelled/.test(m.content);
          if (isNotice) notices.push(m);
          return !isNotice && !m.interactionId;
        });
        return sameAnswer(parts, stored) && parts.every((m) => !TYPING.test(m.content)) ? { stored, parts } : undefined;
      },
      'the complete answer',
      60_000,
      e.fake.changes,
    );
    expect(answer.parts.map((m) => m.content).join('')).toBe(answer.stored);
    // Notice, joined, three agent messages, cancelled: each once.
    expect(notices.length).toBe(6);
    for (const text of fromUser)
      expect(botMessagesIn(e.fake, ticketThread.id).filter((m) => m.content.includes(text)).length).toBe(1);

    // The notice really landed while the answer was streaming there.
    expect(streamingAtNotice).toBe(true);

    const threadCalls = e.fake.calls.filter((c) => isChannelMessageCall(c, threadId));
    const gaps = threadCalls.slice(1).map((c, i) => c.at - threadCalls[i]!.at);
    process.stdout.write(
      `discord handoff pacing: ${threadCalls.length} creates/edits in the thread, least gap ${Math.min(...gaps)} ms, gaps ${gaps.join(', ')}\n`,
    );
    expect(gaps.filter((g) => g < MIN_CHANNEL_GAP_MS)).toEqual([]);
    expect(e.fake.calls.filter((c) => c.status === 429)).toEqual([]);
    expect(e.fake.rateLimitHits).toBe(0);
    expect(discordRateLimitEvents(e)).toBe(0);
  }, 120_000);
});
