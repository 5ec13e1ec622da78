/**
 * The Slack steps of a handoff that e2e tests share, each handing back what it waited for so the test
 * asserts it: the ticket's state line after a claim, the message a relay became.
 */
import type { FakeMessage, FakeSlack } from '../../fakes/fake-slack';
import { button, shown } from '../../fakes/slack-blocks';
import type { SlackDriver } from '../../fakes/slack-requests';
import { waitFor } from '../../fakes/wait-for';
import { AGENT, HANDOFF_CHANNEL } from './slack-e2e';

/** The Slack side of a test: the driver that posts as Slack and the fake that records the bridge's calls. */
interface SlackSide {
  driver: SlackDriver;
  fake: FakeSlack;
}

/** A thread on Slack. */
interface Thread {
  channel: string;
  threadTs: string;
}

/** `agent` presses Claim on `ticket`; resolves with the ticket's state line once its Claim button is gone. */
export async function claimOnSlack(
  s: SlackSide,
  ticket: FakeMessage,
  agent = AGENT,
  channel = HANDOFF_CHANNEL,
): Promise<string> {
  await s.driver.click(button(ticket, 'Claim')!, { channel, messageTs: ticket.ts }, { user: agent });
  const claimed = await waitFor(() => {
    const now = s.fake.message(channel, ticket.ts);
    return now && !button(now, 'Claim') ? now : undefined;
  }, 'the claim');
  return shown(claimed.text).split('\n')[0] ?? '';
}

let seq = 0;

/** `user` writes `text` in `thread` as Slack delivers it (a literal `&` arrives as `&amp;`). */
export async function sayInSlackThread(s: SlackSide, user: string, text: string, thread: Thread): Promise<void> {
  seq += 1;
  await s.driver.event({
    type: 'message',
    channel: thread.channel,
    channel_type: 'channel',
    user,
    text: text.replace(/&/g, '&amp;'),
    ts: `${Math.floor(Date.now() / 1000)}.${String(700_000 + seq)}`,
    thread_ts: thread.threadTs,
  });
}

/**
 * `user` writes `text` in `from`; resolves with the bridge's message in `to` whose shown text holds
 * `marker` (the relay of it).
 */
export async function relayOnSlack(
  s: SlackSide,
  user: string,
  text: string,
  from: Thread,
  to: Thread,
  marker: string,
): Promise<FakeMessage> {
  await sayInSlackThread(s, user, text, from);
  return waitFor(
    () => s.fake.replies(to.channel, to.threadTs).find((m) => shown(m.text).includes(marker)),
    `"${marker}" relayed to ${to.channel}/${to.threadTs}`,
  );
}
