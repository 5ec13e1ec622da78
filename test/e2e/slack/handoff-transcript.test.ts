/**
 * A handoff ticket reads like a person wrote it: the bot's answers in its transcript are chat text
 * (Slack mrkdwn links `<url|address>`, in the blocks and in the message text), never the Markdown
 * source `[2345 Barton Springs Rd](https://…)`; a link the link rules do not trust shows as text
 * there as it did in the chat, and what the user wrote stays text.
 */
import { button } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/wait-for';
import { HANDOFF_CHANNEL, startSlackE2E } from '../../support/slack-e2e';
import { useStarted } from '../../support/server-setup';
import { pressTalkToHuman } from '../../support/slack-flows';

const ADA = 'U0USER1';
const USERS = 'C0TRANSCRIPT';

/** Every mrkdwn text of a message's section blocks, joined. */
function sectionsOf(blocks: unknown[]): string {
  return (blocks as Array<{ type?: string; text?: { text?: string } }>)
    .filter((b) => b.type === 'section')
    .map((b) => b.text?.text ?? '')
    .join('\n');
}

describe('Slack: the ticket transcript shows answers as the chat did', () => {
  const e = useStarted(() => startSlackE2E());

  test('listing links of an answer are Slack links on the ticket, not Markdown source', async () => {
    const question = 'Any 2 bedroom condos for sale in Austin? [my link](https://evil.example/x)';
    const { answer } = await pressTalkToHuman(e.fake, e.driver, ADA, USERS, question);
    // The answer named listings with links to their pages.
    const stored = e.storedAnswers(question).at(-1)!;
    const link = /\[([^\]]+)\]\((https:\/\/homes\.example\.com\/[^)]+)\)/.exec(stored);
    expect(link).not.toBeNull();
    const [, label, url] = link!;
    expect(answer.user).toBe(e.fake.botUserId);
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => button(m, 'Claim')),
      'the ticket',
    );
    const shownLink = `<${url}|${label}>`;
    for (const shown of [ticket.text, sectionsOf(ticket.blocks)]) {
      expect(shown).toMatch(/Bot:/);
      expect(shown).toContain(shownLink);
      expect(shown).not.toContain(`[${label}](`);
      expect(shown).not.toMatch(/\]\(https:\/\/homes\.example\.com/);
      // What Ada wrote stays the characters she typed: no link under a label.
      expect(shown).toContain('[my link](https://evil.example/x)');
      expect(shown).not.toContain('<https://evil.example/x|');
    }
  }, 60_000);
});
