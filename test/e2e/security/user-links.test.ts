/**
 * A user's Markdown link never becomes a masked link under the bot's name. `/ask Is this legit?
 * [Reset your Slack password](https://evil.example/reset)`: the label and its URL show as text on the
 * root quote, in the ticket (reason and transcript), and in both relays (user -> ticket thread,
 * agent -> user), on Slack (no `<url|label>` anywhere; the mrkdwn shows the characters typed) and on
 * Discord (the brackets escaped, the URL in `<...>` and the relay's link previews suppressed). The
 * chatbot's own answer keeps its link to a host of LINK_HOSTS.
 */
import { startFakeOpenAi } from '../../support/fake-openai-server';
import { useStarted } from '../../support/server-setup';
import { ask, botMessagesIn, discordShown, startDiscordE2E, handoffIn } from '../../support/discord-e2e';
import type { FakeMessage as DiscordMessage } from '../../../fakes/fake-discord';
import type { FakeMessage as SlackMessage } from '../../../fakes/fake-slack';
import { shown } from '../../../fakes/slack-blocks';
import { HANDOFF_CHANNEL, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { firstLine, textMatching, ticketThreadOf } from '../../support/discord-flows';
import { claimOnSlack } from '../../support/slack-claims';
import { relayOnSlack } from '../../support/slack-handoff-flows';

const LINK = '[Reset your Slack password](https://evil.example/reset)';
const QUESTION = `Is this legit? ${LINK}`;
const ANSWER = 'No. See [our safety page](https://good.example/safety) for how we write to you.';
/** The answer's link is to a host the deployment trusts (its own links: the listings' hosts and these). */
const TRUSTED = { LINK_HOSTS: 'good.example' };

/** `start`ed with a fake OpenAI-compatible backend that answers ANSWER; closing it closes both. */
async function answeringThroughLlm<T extends { close(): Promise<void> }>(
  start: (llm: { baseUrl: string }) => Promise<T>,
): Promise<T> {
  const llm = await startFakeOpenAi([ANSWER]);
  const started = await start({ baseUrl: llm.baseUrl });
  // The same object (a restart that swaps its app keeps working), closing the backend after it.
  const closeStarted = started.close.bind(started);
  return Object.assign(started, {
    async close() {
      await closeStarted();
      await llm.close();
    },
  });
}

/** What a Slack message shows: its text and every mrkdwn text of its blocks. */
function slackShown(m: SlackMessage): string[] {
  const texts: string[] = [shown(m.text)];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') texts.push(shown(o.text));
      Object.values(o).forEach(walk);
    }
  };
  walk(m.blocks ?? []);
  return texts;
}

/** The link shows as the characters typed (label and URL), in the text and in a block; never masked. */
function expectSlackLinkAsText(m: SlackMessage, times = 1): void {
  const texts = slackShown(m);
  expect(texts[0]).toContain(LINK);
  const inBlocks = texts.slice(1).join('\n').split(LINK).length - 1;
  expect(inBlocks).toBeGreaterThanOrEqual(times);
  expect(JSON.stringify(m)).not.toContain('|Reset your Slack password>');
  expect(JSON.stringify(m)).not.toContain('<https://evil.example');
}

describe('Slack: a user’s [label](url) shows as text with its URL', () => {
  const e = useStarted(() => answeringThroughLlm((llm) => startSlackE2E({ llm, env: TRUSTED })));

  test('root quote, ticket reason and transcript, both relays; the answer keeps its link', async () => {
    const from = e.fake.calls.length;
    await e.driver.command('/ask', QUESTION, { user: 'U0USER1', channel: 'C0LINKS' });
    const root = await waitFor(() => rootFor(e.fake, 'C0LINKS', 'Is this legit?'), 'the root');
    expectSlackLinkAsText(root);
    const { messages } = await waitForAnswer(e, 'C0LINKS', root.ts, QUESTION);
    // The chatbot's link to a trusted host (LINK_HOSTS) stays whole (a link in Slack's markdown_text
    // of a native stream, `<url|label>` in mrkdwn blocks otherwise).
    const answerShown = JSON.stringify(messages.map((m) => [m.text, m.blocks]));
    expect(
      answerShown.includes('[our safety page](https://good.example/safety)') ||
        answerShown.includes('<https://good.example/safety|our safety page>'),
    ).toBe(true);

    await e.driver.command('/handoff', `Help: ${LINK}`, { user: 'U0USER1', channel: 'C0LINKS' });
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => shown(m.text).includes('Help: ')),
      'the ticket',
    );
    // Twice: the reason and the question in the transcript.
    expectSlackLinkAsText(ticket, 2);
    const claimed = await claimOnSlack(e.fake, e.driver, ticket, HANDOFF_CHANNEL, 'U0AGENT');
    expect(claimed.text.split('\n')[0]).toMatch(/^Claimed by \S/);

    const user = { channel: 'C0LINKS', threadTs: root.ts };
    const agent = { channel: HANDOFF_CHANNEL, threadTs: ticket.ts };
    expectSlackLinkAsText(await relayOnSlack(e, 'U0USER1', `From the user ${LINK}`, user, agent, 'From the user'));
    expectSlackLinkAsText(await relayOnSlack(e, 'U0AGENT', `From the agent ${LINK}`, agent, user, 'From the agent'));
    // Nothing the bridge sent anywhere (edits included) made the user's link a masked link.
    const sent = JSON.stringify(e.fake.calls.slice(from).map((c) => c.args));
    expect(sent).not.toContain('|Reset your Slack password>');
    expect(sent).not.toContain('<https://evil.example');
  });
});

/** On Discord the brackets are escaped and the URL wrapped: `\[label\](<url>)` shows as `[label](url)`. */
const DISCORD_INERT = '\\[Reset your Slack password\\](<https://evil.example/reset>)';

function expectDiscordLinkAsText(m: DiscordMessage): void {
  expect(m.content).toContain(DISCORD_INERT);
  expect(m.content).not.toContain(LINK);
  // What Discord displays: the characters the user typed, label and URL.
  expect(discordShown(m.content)).toContain(LINK);
}

describe('Discord: a user’s [label](url) shows as text with its URL, without a preview', () => {
  const e = useStarted(() => answeringThroughLlm((llm) => startDiscordE2E({ llm, env: TRUSTED })));

  test('root quote, ticket reason and transcript, both relays; the answer keeps its link', async () => {
    const { threadId } = await ask(e, QUESTION);
    const root = e.fake.messages.get(threadId)!;
    expectDiscordLinkAsText(root);
    const answer = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes('our safety page')),
      'the answer',
      20_000,
      e.fake.changes,
    );
    // The chatbot's own link stays a Markdown link.
    const final = await textMatching(e, () => answer.content, 'our safety page](', 'the final answer', 20_000);
    expect(final).toContain('[our safety page](https://good.example/safety)');

    handoffIn(e, threadId, `Help: ${LINK}`);
    const ticket = await waitFor(
      () => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes('Help: ')),
      'the ticket',
      10_000,
      e.fake.changes,
    );
    expectDiscordLinkAsText(ticket);
    // The reason and the question in the transcript.
    expect(ticket.content.split(DISCORD_INERT).length - 1).toBeGreaterThanOrEqual(2);
    const ticketThread = await ticketThreadOf(e, ticket);
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await textMatching(e, () => firstLine(ticket), /^Claimed/, 'the claim', 10_000)).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC/,
    );

    e.fake.userMessage({ channelId: threadId, member: e.user, content: `From the user ${LINK}` });
    const toTicket = await waitFor(
      () => botMessagesIn(e.fake, ticketThread.id).find((m) => m.content.includes('From the user')),
      'the user message in the ticket thread',
      10_000,
      e.fake.changes,
    );
    expectDiscordLinkAsText(toTicket);
    expect(toTicket.flags & 4).toBe(4);
    e.fake.userMessage({ channelId: ticketThread.id, member: e.agent, content: `From the agent ${LINK}` });
    const toUser = await waitFor(
      () => botMessagesIn(e.fake, threadId).find((m) => m.content.includes('From the agent')),
      'the agent message in the user thread',
      10_000,
      e.fake.changes,
    );
    expectDiscordLinkAsText(toUser);
    expect(toUser.flags & 4).toBe(4);
  });
});
