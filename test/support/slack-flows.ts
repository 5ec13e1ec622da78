/**
 * Waits that hand back what they waited for, so the test asserts on it with `expect` (a bare wait
 * proves only that something matched, not what it said).
 */
import type { FakeEphemeral, FakeMessage, FakeSlack } from '../../fakes/fake-slack';
import { waitFor } from '../../fakes/wait-for';
import { button, shown } from '../../fakes/slack-blocks';
import type { SlackDriver } from '../../fakes/slack-requests';
import { rootFor } from './slack-e2e';

/** The first line of an answer as Slack shows it (its first message's), e.g. "I found 2 condos in Denver:". */
export function firstLineOf(messages: readonly FakeMessage[]): string {
  return shown(messages[0]?.text ?? '').split('\n')[0]!;
}

/** The first of `texts()` (a thread, a channel) that matches `re`, once there is one. */
export function textMatching(
  texts: () => readonly string[],
  re: RegExp,
  what: string,
  timeoutMs?: number,
): Promise<string> {
  return waitFor(() => texts().find((t) => re.test(t)), what, timeoutMs);
}

/** `read()` (a text that changes in place, e.g. a ticket's state line) once it matches `re`. */
export function becomes(read: () => string | undefined, re: RegExp, what: string, timeoutMs?: number): Promise<string> {
  return waitFor(
    () => {
      const now = read();
      return now !== undefined && re.test(now) && now;
    },
    what,
    timeoutMs,
  );
}

/** The ephemerals shown to `user` since `after` (an index into `fake.ephemerals`) that match `re`, once there are `count`. */
export function ephemeralsTo(
  fake: FakeSlack,
  user: string,
  re: RegExp,
  after: number,
  count = 1,
): Promise<FakeEphemeral[]> {
  return waitFor(() => {
    const shown = fake.ephemerals.slice(after).filter((m) => m.user === user && re.test(m.text));
    return shown.length >= count && shown;
  }, `${count} ephemeral(s) to ${user} matching ${re}`);
}

/** The first ephemeral shown to `user` since `after` that matches `re`. */
export async function ephemeralTo(fake: FakeSlack, user: string, re: RegExp, after: number): Promise<FakeEphemeral> {
  return (await ephemeralsTo(fake, user, re, after))[0]!;
}

/** The message at `channel`/`ts` once its text, edited in place, matches `re` (e.g. a listings page turned). */
export function editedTo(
  fake: FakeSlack,
  channel: string,
  ts: string,
  re: RegExp,
  timeoutMs?: number,
): Promise<FakeMessage> {
  return waitFor(
    () => {
      const now = fake.message(channel, ts);
      return now !== undefined && re.test(now.text) && now;
    },
    `${channel}/${ts} matching ${re}`,
    timeoutMs,
  );
}

/** `user` asks `question` with /ask in `channel`: the conversation's root and the answer that offers "Talk to a human". */
export async function askAnswered(
  e: { fake: FakeSlack; driver: SlackDriver },
  user: string,
  channel: string,
  question: string,
): Promise<{ root: FakeMessage; answer: FakeMessage }> {
  await e.driver.command('/ask', question, { user, channel });
  const root = await waitFor(() => rootFor(e.fake, channel, question), `the root of "${question}"`);
  const answer = await waitFor(
    () => e.fake.replies(channel, root.ts).find((m) => button(m, 'Talk to a human')),
    `the answer to "${question}"`,
  );
  return { root, answer };
}

/**
 * `user` asks `question` with /ask in `channel` of the workspace `driver` speaks for, then presses
 * "Talk to a human" under the answer: the conversation's root and that answer.
 */
export async function pressTalkToHuman(
  fake: FakeSlack,
  driver: SlackDriver,
  user: string,
  channel: string,
  question: string,
): Promise<{ root: FakeMessage; answer: FakeMessage }> {
  const { root, answer } = await askAnswered({ fake, driver }, user, channel, question);
  await driver.click(
    button(answer, 'Talk to a human')!,
    { channel, messageTs: answer.ts, threadTs: root.ts },
    { user },
  );
  return { root, answer };
}

type ShownBlock = { type?: string; [k: string]: unknown };
/** A data_visualization block's line chart as the fake keeps it. */
export interface ShownChart {
  title: string;
  chart: { series: Array<{ name: string; data: Array<{ label: string; value: number }> }> };
}

/** /analytics in `channel` once shown: its table of figures (rows of cell text) and its trend chart block. */
export function analyticsShown(fake: FakeSlack, channel: string): Promise<{ rows: string[][]; chart: ShownChart }> {
  return waitFor(() => {
    const blocks = fake.channelMessages(channel).flatMap((m) => m.blocks as ShownBlock[]);
    const table = blocks.find((b) => b.type === 'data_table') as { rows: Array<Array<{ text: string }>> } | undefined;
    const chart = blocks.find((b) => b.type === 'data_visualization') as ShownChart | undefined;
    return table && chart && { rows: table.rows.map((r) => r.map((c) => c.text)), chart };
  }, `the table and chart of /analytics in ${channel}`);
}

/** `text` told in `channel`: an ephemeral there (from index `from` of `fake.ephemerals` on) or a message. */
export function toldIn(fake: FakeSlack, channel: string, text: string, from = 0): Promise<FakeEphemeral | FakeMessage> {
  return waitFor(
    () =>
      fake.ephemerals.slice(from).find((m) => m.channel === channel && JSON.stringify(m).includes(text)) ??
      fake.messages.find((m) => m.channel === channel && m.text.includes(text)),
    `"${text}" in ${channel}`,
  );
}

/** `/chatbot connect` typed by `owner` in `channel`, its form submitted with `values`, until "Connected" is told. */
export async function connectByForm(
  fake: FakeSlack,
  driver: SlackDriver,
  owner: string,
  channel: string,
  values: Record<string, string>,
): Promise<void> {
  const before = fake.views.length;
  await driver.command('/chatbot', 'connect', { user: owner, channel });
  const view = await waitFor(() => fake.views[before], 'the connect form');
  await driver.submitView(view, values, { user: owner });
  await toldIn(fake, channel, 'Connected');
}
