/**
 * A Discord user's tickets in a Slack handoff channel: the whole bridge for Discord (startDiscordE2E)
 * with Slack configured beside it as a deployment would (the fake Slack's Web API, signed requests),
 * tickets going to the Slack channel. Start it with `useStarted(() => startDiscordToSlack(...))`.
 */
import { FakeSlack, type FakeMessage as SlackMessage } from '../../fakes/fake-slack';
import { button } from '../../fakes/slack-blocks';
import { SlackDriver } from '../../fakes/slack-requests';
import { waitFor } from '../../fakes/wait-for';
import { ask, type DiscordE2E, handoffIn, startDiscordE2E, waitForAnswer } from './discord-e2e';

export const SLACK_HANDOFF = 'C0XHANDOFF';
const SECRET = 'cross-surface-signing-secret';

export interface DiscordToSlack {
  e: DiscordE2E;
  slack: FakeSlack;
  /** Signed requests to the bridge, as Slack sends them (agents' clicks and commands). */
  driver: SlackDriver;
  close(): Promise<void>;
}

export async function startDiscordToSlack(opts: {
  /** Slack users by id (agents), and who is a member of the Slack handoff channel (the agents). */
  users: Record<string, string>;
  members: string[];
  env?: Record<string, string>;
  /** Core's clock (default Date.now). */
  now?: () => number;
  /** An OpenAI-compatible service for the chatbot's answers (default: the local service's own). */
  llm?: { baseUrl: string };
}): Promise<DiscordToSlack> {
  const slack = await new FakeSlack({ users: opts.users }).start();
  slack.channelMembers[SLACK_HANDOFF] = [...opts.members];
  const e = await startDiscordE2E({
    omitEnv: ['DISCORD_HANDOFF_CHANNEL'],
    env: {
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      SLACK_HANDOFF_CHANNEL: SLACK_HANDOFF,
      ...opts.env,
    },
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.llm ? { llm: opts.llm } : {}),
  });
  return {
    e,
    slack,
    driver: new SlackDriver(`${e.app.url}/slack/events`, SECRET, slack.team),
    async close() {
      await e.close();
      await slack.close();
    },
  };
}

/** The Discord user asks `question`, gets the answer, asks for a human: the ticket in the Slack channel. */
export async function discordTicketOnSlack(
  x: DiscordToSlack,
  question: string,
  reason: string,
): Promise<{ threadId: string; ticket: SlackMessage }> {
  const { threadId } = await ask(x.e, question);
  const { answer, messages } = await waitForAnswer(x.e, threadId, question);
  // The user saw the whole answer, word for word, before asking for a human.
  expect(messages.map((m) => m.content).join('')).toBe(answer);
  handoffIn(x.e, threadId, reason);
  const ticket = await waitFor(
    () => x.slack.channelMessages(SLACK_HANDOFF).find((m) => button(m, 'Claim') && m.text.includes(reason)),
    'the ticket in the Slack handoff channel',
  );
  // The Slack ticket leads the agent to the Discord thread the user was answered in.
  expect(ticket.text).toContain(`/${threadId}`);
  return { threadId, ticket };
}
