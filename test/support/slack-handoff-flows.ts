/**
 * The Slack steps of a handoff that e2e tests share, each handing back what it waited for so the test
 * asserts it: the message a relay became.
 */
import type { FakeMessage, FakeSlack } from '../../fakes/fake-slack';
import { shown } from '../../fakes/slack-blocks';
import type { SlackDriver } from '../../fakes/slack-requests';
import { waitFor } from '../../fakes/wait-for';

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

let seq = 0;

/** `user` writes `text` in `thread` as Slack delivers it (a literal `&` arrives as `&amp;`). */
async function sayInSlackThread(s: SlackSide, user: string, text: string, thread: Thread): Promise<void> {
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
