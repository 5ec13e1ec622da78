/**
 * A Discord user's ticket in a Slack handoff channel behaves as a Slack user's does around the clock
 * (configured only through the environment, an SMTP server on 127.0.0.1, an injected clock):
 * - after hours: the Discord user is told TalkToHumanResponseMessage, when agents are back in the
 *   office's time and that it went by e-mail; the Slack ticket is marked after hours; one e-mail;
 * - the response target: the 80% warning in the Slack ticket thread, the escalation mentioning the
 *   Slack group of HANDOFF_ESCALATE only (not its Discord role), "Response target missed by N min".
 */
import { button } from '../../../fakes/slack-blocks';
import { waitFor } from '../../../fakes/wait-for';
import { discordTicketOnSlack, SLACK_HANDOFF, startDiscordToSlack } from '../../support/cross-surface';
import { botMessagesIn } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';
import { officeEnv, startSmtpSink } from '../../support/smtp-sink';

const BEA = 'U0AG2';
const ROLE = '112233445566';
const MIN = 60_000;
// Friday 6 March 2026, 21:00 in Chicago (03:00 UTC on the 7th): closed until Monday 09:00.
let offset = Date.parse('2026-03-07T03:00:00Z') - Date.now();
const setClock = (iso: string): void => {
  offset = Date.parse(iso) - Date.now();
};

describe('Discord user, Slack handoff channel, around the clock', () => {
  const sink = useStarted(() => startSmtpSink({ user: 'bridge', pass: 'smtp-pass-x7' }));
  const x = useStarted(() =>
    startDiscordToSlack({
      users: { [BEA]: 'Bea Agent' },
      members: [BEA],
      env: {
        ...officeEnv(sink),
        HANDOFF_FIRST_REPLY_S: '600',
        HANDOFF_ESCALATE: `S0ESCAL8,${ROLE}`,
      },
      now: () => Date.now() + offset,
    }),
  );
  let ticketTs = '';

  test('after hours: the Discord user is told when agents are back, the Slack ticket is marked, one e-mail', async () => {
    const { threadId, ticket } = await discordTicketOnSlack(
      x,
      'Which homes are for rent in Seattle?',
      'please call me at 555-0101',
    );
    ticketTs = ticket.ts;
    expect(ticket.text.split('\n')[1]).toBe('After hours: opened outside office hours');
    expect(ticket.text).toContain('ada (Discord user)');

    const notice = await waitFor(
      () => botMessagesIn(x.e.fake, threadId).find((m) => m.content.includes('Our agents are back')),
      "the Discord user's notice",
      10_000,
      x.e.fake.changes,
    );
    expect(notice.content).toContain('Our agents are back Monday at 9:00 AM (Central Time).');
    expect(notice.content).toContain('Your request has also been sent to agents@skyline.example by e-mail.');

    const mail = await waitFor(() => sink.mails[0], 'the after-hours e-mail', 15_000);
    expect(mail.to).toEqual(['agents@skyline.example']);
    expect(mail.subject).toBe('After-hours handoff: ada (Seattle)');
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('555-0101');
      expect(part).toContain('Which homes are for rent in Seattle?');
      expect(part).toContain(`https://fake.slack.test/archives/${SLACK_HANDOFF}/p${ticket.ts.replace('.', '')}`);
    }
    // Nothing more on the next sweeps: one e-mail.
    await x.e.app.bridge.handoffs.sweepUnclaimed();
    await x.e.app.bridge.handoffs.drain();
    expect(sink.mails).toHaveLength(1);
  }, 60_000);

  test('response target: warning at 80%, escalation to the Slack group only, the miss on the Slack ticket', async () => {
    setClock('2026-03-09T14:00:00Z'); // Monday 09:00 CDT: open
    const shown = () => x.slack.message(SLACK_HANDOFF, ticketTs)!;
    await x.driver.click(button(shown(), 'Claim')!, { channel: SLACK_HANDOFF, messageTs: ticketTs }, { user: BEA });
    const claimed = await waitFor(() => /^Claimed by Bea Agent/.test(shown().text) && shown(), 'the claim');
    expect(claimed.text).toMatch(/^Claimed by Bea Agent/);
    const thread = (): string[] => x.slack.replies(SLACK_HANDOFF, ticketTs).map((m) => m.text);

    offset += 8 * MIN; // 8 of the 10 minutes since the claim
    await x.e.app.bridge.handoffs.sweepUnclaimed();
    const warning = await waitFor(() => thread().find((t) => t.startsWith('Response target: ')), 'the warning');
    expect(warning).toBe(
      "Response target: 2 min left for Bea Agent's first reply to ada (target 10 min from the claim, in office time).",
    );

    offset += 2 * MIN;
    await x.e.app.bridge.handoffs.sweepUnclaimed();
    const escalation = await waitFor(() => thread().find((t) => t.includes('Escalated')), 'the escalation');
    expect(escalation).toBe(
      '<!subteam^S0ESCAL8> Escalated: ada has had no reply from Bea Agent 10 min after the claim (the response target). Please step in or take it over.',
    );
    expect(thread().join('\n')).not.toContain(ROLE);
    const missed = await waitFor(
      () => shown().text.includes('Response target missed by') && shown(),
      'the miss on the ticket',
    );
    expect(missed.text.split('\n')).toContain('Response target missed by 1 min');
  }, 60_000);
});
