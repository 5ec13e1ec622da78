/**
 * An agent's Claim on a Slack ticket, as Slack sends the click, and the ticket once it shows the
 * claim: shared by the tests that drive a Slack handoff channel (Slack users' and Discord users' tickets).
 */
import type { FakeMessage, FakeSlack } from '../../fakes/fake-slack';
import { button } from '../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../fakes/slack-requests';

/** `user` presses Claim on `ticket` in `channel`; resolves with the ticket once it no longer offers Claim. */
export async function claimOnSlack(
  fake: FakeSlack,
  driver: SlackDriver,
  ticket: FakeMessage,
  channel: string,
  user: string,
): Promise<FakeMessage> {
  await driver.click(button(ticket, 'Claim')!, { channel, messageTs: ticket.ts }, { user });
  return waitFor(() => {
    const m = fake.message(channel, ticket.ts);
    return m && !button(m, 'Claim') ? m : undefined;
  }, 'the claim on the Slack ticket');
}
