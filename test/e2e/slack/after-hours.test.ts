/**
 * Slack, configured only through the environment (HANDOFF_HOURS, HANDOFF_TIMEZONE, HANDOFF_EMAIL,
 * SMTP_URL, MAIL_FROM) with an SMTP server on 127.0.0.1: "Talk to a human" on a Saturday opens a
 * ticket marked after hours, tells the user when agents are back in the office's time and that it
 * went by e-mail, and the e-mail arrives over SMTP. The log says once that e-mail is on, and never
 * shows the SMTP password; without SMTP_URL it says once that e-mail is off.
 */
import { button } from '../../../fakes/slack-blocks';
import { AGENT, askForHuman, HANDOFF_CHANNEL, startSlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { officeEnv, startSmtpSink } from '../../support/smtp-sink';

const USERS = 'C0LEADS';
const ADA = 'U0USER1';
// Saturday 7 March 2026, 10:00 in Chicago (16:00 UTC); the clock runs on from there.
const OFFSET = Date.parse('2026-03-07T16:00:00Z') - Date.now();

describe('Slack: handoff outside office hours', () => {
  const logLines: string[] = [];
  const e = useStarted(async () => {
    const sink = await startSmtpSink({ user: 'bridge', pass: 'smtp-pass-9f3k' });
    const started = await startSlackE2E({ env: officeEnv(sink), logLines, now: () => Date.now() + OFFSET });
    return {
      ...started,
      sink,
      async close() {
        await started.close();
        await sink.close();
      },
    };
  });

  test('the ticket opens marked after hours, the user is told when agents are back, the e-mail arrives', async () => {
    const question = 'I am looking for a 3 bedroom house in Austin, write me at ada.l@example.com';
    const { root, ticket } = await askForHuman(e, ADA, USERS, question);
    expect(ticket.text.split('\n')[1]).toBe('After hours: opened outside office hours');
    const notice = await waitFor(
      () => e.fake.replies(USERS, root.ts).find((m) => m.text.includes('Our agents are back')),
      "the user's notice",
    );
    expect(notice.text).toContain('Our agents are back Monday at 9:00 AM (Central Time).');
    expect(notice.text).toContain('Your request has also been sent to agents@skyline.example by e-mail.');
    expect(button(notice, 'Cancel')).toBeDefined();

    const mail = await waitFor(() => e.sink.mails[0], 'the after-hours e-mail', 15_000);
    expect(mail.to).toEqual(['agents@skyline.example']);
    expect(mail.from).toBe('bot@skyline.example');
    expect(mail.subject).toBe('After-hours handoff: Ada Lovelace (Austin)');
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('ada.l@example.com');
      expect(part).toContain('I am looking for a 3 bedroom house in Austin');
      expect(part).toContain(`https://fake.slack.test/archives/${HANDOFF_CHANNEL}/p${ticket.ts.replace('.', '')}`);
      expect(part).toContain(`https://fake.slack.test/archives/${USERS}/p${root.ts.replace('.', '')}`);
    }
    expect(e.sink.mails).toHaveLength(1);

    expect(logLines.filter((l) => l.includes('"msg":"e-mail: on"'))).toHaveLength(1);
    expect(logLines.join('\n')).not.toContain('smtp-pass-9f3k');
  }, 60_000);

  test('/handoff away and back: stored, and the queue and App Home show who is away', async () => {
    const told = async (args: string, re: RegExp) => {
      const from = e.fake.ephemerals.length;
      await e.driver.command('/handoff', args, { user: AGENT, channel: HANDOFF_CHANNEL });
      return waitFor(() => e.fake.ephemerals.slice(from).find((m) => m.user === AGENT && re.test(m.text)), args);
    };
    expect((await told('away', /^You are away/)).text).toMatch(/Use \/handoff back when you return/);
    expect((await told('queue', /Handoff queue/)).text).toMatch(/^Away: Agent Smith$/m);
    await e.driver.event({ type: 'app_home_opened', user: AGENT, channel: 'D0AGENT', tab: 'home' });
    const home = await waitFor(() => e.fake.homeViews.find((v) => v.user === AGENT), 'the App Home');
    expect(JSON.stringify(home.view.blocks)).toContain('Away: Agent Smith');
    await told('back', /^You are back/);
    expect((await told('queue', /Handoff queue/)).text).not.toMatch(/Away:/);
  }, 30_000);

  test('without SMTP_URL the log says once that e-mail is off', async () => {
    // A second app of its own, started and closed inside the test: only its start-up log is read.
    const lines: string[] = [];
    const off = await startSlackE2E({ logLines: lines });
    try {
      expect(lines.filter((l) => l.includes('e-mail: off (SMTP_URL is not set)'))).toHaveLength(1);
    } finally {
      await off.close();
    }
  }, 30_000);
});
