/**
 * Waits that hand back what they waited for, so a Discord test asserts the content it depends on
 * instead of only having waited: the text that matched, the bot's message, the buttons left.
 */
import type { FakeChannel, FakeMessage } from '../../fakes/fake-discord';
import { waitFor } from '../../fakes/wait-for';
import { ask, botMessagesIn, type DiscordE2E, handoffIn, waitForAnswer } from './discord-e2e';

/** A ticket's (or any message's) first line: on a ticket, its state line. */
export function firstLine(m: { content: string }): string {
  return m.content.split('\n')[0] ?? '';
}

/** What the user reads of an answer: its messages' text, in order. */
export function answerText(messages: FakeMessage[]): string {
  return messages.map((m) => m.content).join('\n');
}

/** Waits for the answer to `question` in `threadId` (a thread or a DM); resolves with the text the user reads there. */
export async function answerIn(e: DiscordE2E, threadId: string, question: string, timeoutMs?: number): Promise<string> {
  return answerText((await waitForAnswer(e, threadId, question, timeoutMs)).messages);
}

/** Waits until `read()` matches `pattern` and resolves with what it read then. */
export function textMatching(
  e: DiscordE2E,
  read: () => string,
  pattern: RegExp | string,
  what: string,
  timeoutMs = 15_000,
): Promise<string> {
  return waitFor(
    () => {
      const text = read();
      return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
    },
    what,
    timeoutMs,
    e.fake.changes,
  );
}

/** Waits for the bot's message in `channelId` whose content matches `pattern`; resolves with it. */
export function botMessage(
  e: DiscordE2E,
  channelId: string,
  pattern: RegExp | string,
  what = `the bot saying ${String(pattern)}`,
  timeoutMs = 15_000,
): Promise<FakeMessage> {
  return waitFor(
    () =>
      botMessagesIn(e.fake, channelId).find((m) =>
        typeof pattern === 'string' ? m.content.includes(pattern) : pattern.test(m.content),
      ),
    what,
    timeoutMs,
    e.fake.changes,
  );
}

/** The content of the bot's message in `channelId` that matches `pattern`, once there is one. */
export async function botSays(
  e: DiscordE2E,
  channelId: string,
  pattern: RegExp | string,
  what?: string,
  timeoutMs?: number,
): Promise<string> {
  return (await botMessage(e, channelId, pattern, what, timeoutMs)).content;
}

/** The labels of the buttons on the bot's messages in `channelId`. */
export function botButtonLabels(e: DiscordE2E, channelId: string): string[] {
  return botMessagesIn(e.fake, channelId).flatMap((m) => e.fake.buttons(m).map((b) => String(b.label)));
}

/** Waits until no bot message in `channelId` offers a button labelled `label`; resolves with the labels left. */
export function buttonsWithout(
  e: DiscordE2E,
  channelId: string,
  label: string,
  what = `the ${label} button gone`,
  timeoutMs = 15_000,
): Promise<string[]> {
  return waitFor(
    () => {
      const labels = botButtonLabels(e, channelId);
      return labels.includes(label) ? undefined : labels;
    },
    what,
    timeoutMs,
    e.fake.changes,
  );
}

/** Waits until `m` offers no button labelled `label`; resolves with its labels then. */
export function labelsWithout(e: DiscordE2E, m: FakeMessage, label: string, what = `${label} gone`): Promise<string[]> {
  return waitFor(
    () => {
      const labels = e.fake.buttons(m).map((b) => String(b.label));
      return labels.includes(label) ? undefined : labels;
    },
    what,
    15_000,
    e.fake.changes,
  );
}

/**
 * The user asks `question` in the general channel, gets the answer, and hands off: the ticket in the
 * handoff channel, and the answer's text as the user read it.
 */
export async function askThenHandoff(
  e: DiscordE2E,
  question: string,
  reason: string,
): Promise<{ threadId: string; ticket: FakeMessage; answer: string }> {
  const { threadId } = await ask(e, question);
  const answer = await answerIn(e, threadId, question);
  handoffIn(e, threadId, reason);
  const ticket = await waitFor(
    () => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes(reason)),
    `the ticket for "${reason}"`,
    10_000,
    e.fake.changes,
  );
  // The ticket leads the agent to the conversation the user was answered in.
  expect(ticket.content).toContain(`/${threadId}`);
  return { threadId, ticket, answer };
}

/** The ticket in the handoff channel whose text contains `reason`, once it is posted. */
export function ticketFor(e: DiscordE2E, reason: string, timeoutMs = 15_000): Promise<FakeMessage> {
  return waitFor(
    () => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes(reason)),
    `the ticket for "${reason}"`,
    timeoutMs,
    e.fake.changes,
  );
}

/** The thread on a ticket (a channel on Discord), once it exists. */
export function ticketThreadOf(e: DiscordE2E, ticket: FakeMessage): Promise<FakeChannel> {
  return waitFor(() => e.fake.channels.get(ticket.id), 'the ticket thread', 10_000, e.fake.changes);
}

/**
 * `member` asks `question` with /ask, gets the answer, then types `/handoff <reason>` in its thread:
 * the ticket, and the answer's text as the user read it.
 */
export async function handOffAfterAnswer(
  e: DiscordE2E,
  question: string,
  reason: string,
  member = e.user,
): Promise<{ threadId: string; ticket: FakeMessage; answer: string }> {
  const { threadId } = await ask(e, question, member);
  const answer = await answerIn(e, threadId, question);
  handoffIn(e, threadId, reason, member);
  const ticket = await ticketFor(e, reason);
  // The ticket leads the agent to the conversation the user was answered in.
  expect(ticket.content).toContain(`/${threadId}`);
  return { threadId, ticket, answer };
}

/**
 * Lets `ms` pass on an injected clock (`advance` moves the offset the app's `now` adds) and runs the
 * handoff sweep as the periodic one would at that time.
 */
export async function sweepAfter(e: DiscordE2E, advance: (ms: number) => void, ms: number): Promise<void> {
  advance(ms);
  await e.app.bridge.handoffs.sweepUnclaimed();
}

/** The agents' reminder line for a ticket still waiting. */
export function reminderLine(n: number, user: string, wait: string): string {
  return `Reminder (${n} of 3): ${user} has been waiting ${wait} for an agent. Press Claim on the ticket to take it.`;
}
