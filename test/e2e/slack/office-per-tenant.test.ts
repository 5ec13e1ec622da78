/**
 * Each office its own hours, time zone and e-mails, in the background too (an injected clock, an SMTP
 * server on 127.0.0.1): two workspaces installed by OAuth connect chatbots A and B on the local
 * service; each one's admin applies its own TimeZone, TalkToHumanEmail and EmailForDailyLeads with
 * /chatbot set and its own hours with /chatbot hours. The deployment's HANDOFF_HOURS (Chicago,
 * Mon-Fri) and HANDOFF_EMAIL are the operator's and apply to neither.
 * - X (New York, Mon-Sat 09:00-17:00) is open on Saturday morning: its ticket is not after hours, the
 *   sweep reminds X's thread in office hours, and the last reminder e-mails X's address;
 * - Y (Tokyo, Mon-Fri) is closed then (early Sunday there): its ticket is after hours, its user told
 *   when Y's agents are back, the e-mail goes to Y's address, and no reminder comes while Y is closed;
 * - the next day's digests: one to each office's EmailForDailyLeads at its own hour in its own time
 *   zone (X's set with /chatbot hours leads), each with its own lead only;
 * - /chatbot hours shows, sets, clears and rejects bad input naming the field and the fix.
 */
import { button } from '../../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { pressTalkToHuman, toldIn } from '../../support/slack-flows';
import { OWNER_X, OWNER_Y, twoConnectedOffices } from '../../support/slack-offices';
import { startOAuthE2E } from '../../support/slack-oauth';
import { officeEnv, startSmtpSink } from '../../support/smtp-sink';

// Saturday 7 March 2026, 16:00 UTC: 11:00 in New York, 10:00 in Chicago, 01:00 on Sunday in Tokyo.
let offset = Date.parse('2026-03-07T16:00:00Z') - Date.now();
const setClock = (iso: string): void => {
  offset = Date.parse(iso) - Date.now();
};

describe('Slack e2e: each office its own hours, time zone and e-mails, in the background too', () => {
  const sink = useStarted(() => startSmtpSink());
  const e = useStarted(() => startOAuthE2E({ env: officeEnv(sink), now: () => Date.now() + offset }));
  let x: SlackDriver;
  let y: SlackDriver;
  const tickets: Record<'x' | 'y', string> = { x: '', y: '' };

  /** A reply to `user` in `channel` (a message or an ephemeral) that contains `text`. */
  const told = (channel: string, text: string) => toldIn(e.fake, channel, text);

  async function askForHuman(d: SlackDriver, user: string, channel: string, desk: string, question: string) {
    const { root } = await pressTalkToHuman(e.fake, d, user, channel, question);
    const ticket = await waitFor(
      () => e.fake.channelMessages(desk).find((m) => button(m, 'Claim')),
      `the ticket in ${desk}`,
    );
    return { root, ticket };
  }

  beforeAll(async () => {
    ({ x, y } = await twoConnectedOffices(e, { x: ['U0AGENTX'], y: ['U0AGENTY'] }));
    // Each admin applies their own office settings, from their own workspace.
    const settings = {
      x: ['TimeZone America/New_York', 'TalkToHumanEmail desk@x.example', 'EmailForDailyLeads leads@x.example'],
      y: ['TimeZone Asia/Tokyo', 'TalkToHumanEmail desk@y.example', 'EmailForDailyLeads leads@y.example'],
    };
    for (const s of settings.x) {
      await x.command('/chatbot', `set ${s}`, { user: OWNER_X, channel: 'C0XGEN' });
      await told('C0XGEN', `Set ${s.split(' ')[0]}`);
    }
    for (const s of settings.y) {
      await y.command('/chatbot', `set ${s}`, { user: OWNER_Y, channel: 'C0YGEN' });
      await told('C0YGEN', `Set ${s.split(' ')[0]}`);
    }
    await x.command('/chatbot', 'hours Mon-Sat 09:00-17:00', { user: OWNER_X, channel: 'C0XGEN' });
    await told('C0XGEN', 'Office hours set: Mon-Sat 09:00-17:00');
    await y.command('/chatbot', 'hours Mon-Fri 09:00-17:00', { user: OWNER_Y, channel: 'C0YGEN' });
    await told('C0YGEN', 'Office hours set: Mon-Fri 09:00-17:00');
    // X wants its day's leads in the evening; Y keeps the deployment's hour (LEADS_DIGEST_HOUR, 8).
    await x.command('/chatbot', 'hours leads 21', { user: OWNER_X, channel: 'C0XGEN' });
    await told('C0XGEN', "The day's leads are e-mailed at 21:00");
  }, 60_000);

  test('X is open by its own hours and Y closed by its own: the opening, the notice and the e-mail of each', async () => {
    const ax = await askForHuman(
      x,
      'U0USER1',
      'C0XGEN',
      'C0XDESK',
      'Homes in Austin? Write me at ada@x-client.example',
    );
    tickets.x = ax.ticket.ts;
    expect(ax.ticket.text).not.toContain('After hours');
    sink.refuseNext(1);
    const ay = await askForHuman(
      y,
      'U0USER2',
      'C0YGEN',
      'C0YDESK',
      'Condos in Denver? Write me at grace@y-client.example',
    );
    tickets.y = ay.ticket.ts;
    expect(ay.ticket.text.split('\n')[1]).toBe('After hours: opened outside office hours');
    const notice = await waitFor(
      () => e.fake.replies('C0YGEN', ay.root.ts).find((m) => m.text.includes('Our agents are back')),
      "Y's user's notice",
    );
    expect(notice.text).toContain('Our agents are back Monday at 9:00 AM (Japan Standard Time).');
    expect(notice.text).toContain('Your request has also been sent to desk@y.example by e-mail.');
    // The SMTP server refuses it at first: Y's queue says so, X's (another office's) does not.
    await waitFor(() => sink.refused >= 1 || undefined, 'the refusal', 15_000);
    const queueLines = async (d: SlackDriver, owner: string, channel: string) => {
      const from = e.fake.ephemerals.length;
      await d.command('/handoff', 'queue', { user: owner, channel });
      const q = await waitFor(
        () => e.fake.ephemerals.slice(from).find((m) => m.channel === channel && m.text.includes('Handoff queue')),
        `the queue in ${channel}`,
      );
      return q.text;
    };
    expect(await queueLines(y, OWNER_Y, 'C0YGEN')).toContain('E-mail not sent yet: "After-hours handoff: Grace Hopper');
    expect(await queueLines(x, OWNER_X, 'C0XGEN')).not.toContain('Grace Hopper');
    offset += 31_000;
    await e.app.bridge.handoffs.drain();
    const mail = await waitFor(() => sink.mails.find((m) => m.subject.startsWith('After-hours')), "Y's e-mail", 15_000);
    expect(mail.to).toEqual(['desk@y.example']);
    expect(mail.subject).toBe('After-hours handoff: Grace Hopper (Denver)');
    expect(sink.mails).toHaveLength(1);
  }, 60_000);

  test('the sweep reminds X in X’s office hours and e-mails X’s address; Y, closed, is not reminded', async () => {
    const thread = (desk: string, ts: string) => e.fake.replies(desk, ts).map((m) => m.text);
    // Every 5 min of X's office time (the tickets opened a few seconds after 16:00).
    for (const [n, at] of [
      [1, '16:05:10'],
      [2, '16:10:20'],
      [3, '16:15:30'],
    ] as const) {
      setClock(`2026-03-07T${at}Z`);
      await e.app.bridge.handoffs.sweepUnclaimed();
      await waitFor(
        () => thread('C0XDESK', tickets.x).filter((t) => t.startsWith('Reminder')).length >= n || undefined,
        `reminder ${n}`,
      );
    }
    const reminders = thread('C0XDESK', tickets.x).filter((t) => t.startsWith('Reminder'));
    expect(reminders[0]).toBe(
      'Reminder (1 of 3): Ada Lovelace has been waiting 5 min in office hours for an agent. Press Claim on the ticket to take it.',
    );
    const unclaimed = await waitFor(
      () => sink.mails.find((m) => m.subject.startsWith('Unclaimed')),
      "X's e-mail",
      15_000,
    );
    expect(unclaimed.to).toEqual(['desk@x.example']);
    expect(unclaimed.subject).toBe('Unclaimed handoff: Ada Lovelace (Austin)');
    await e.app.bridge.handoffs.drain();
    expect(thread('C0YDESK', tickets.y).filter((t) => t.startsWith('Reminder'))).toEqual([]);
    // The operator's HANDOFF_EMAIL serves neither office.
    expect(sink.mails.flatMap((m) => m.to)).not.toContain('agents@skyline.example');
  }, 60_000);

  test('the next day: each office its own digest, of its own leads, to its own address, at its own hour', async () => {
    const digests = () => sink.mails.filter((m) => m.subject.startsWith('Leads of'));
    const digest = (to: string) =>
      waitFor(() => digests().find((m) => m.to.includes(to)), `the digest to ${to}`, 15_000);
    // Monday 00:00 UTC: 09:00 in Tokyo, Sunday's digest due there; 20:00 on Sunday in New York, before X's 21:00.
    setClock('2026-03-09T00:00:00Z');
    await e.app.bridge.handoffs.hours.digest();
    const dy = await digest('leads@y.example');
    expect(dy.subject).toBe('Leads of 2026-03-08: 1 handoff ticket');
    expect(dy.text).toContain('Grace Hopper');
    expect(dy.text).toContain('grace@y-client.example');
    expect(dy.text).not.toContain('Ada Lovelace');
    expect(dy.text).not.toContain('ada@x-client.example');
    expect(digests()).toHaveLength(1);
    // 21:00 in New York: Saturday's digest of X.
    setClock('2026-03-09T01:00:00Z');
    await e.app.bridge.handoffs.hours.digest();
    const dx = await digest('leads@x.example');
    expect(dx.subject).toBe('Leads of 2026-03-07: 1 handoff ticket');
    expect(dx.text).toContain('Ada Lovelace');
    expect(dx.text).toContain('ada@x-client.example');
    expect(dx.text).not.toContain('Grace Hopper');
    expect(dx.text).not.toContain('grace@y-client.example');
    expect(dy.messageId).not.toBe(dx.messageId);
    // Once a day: a second check (another instance's, a later minute) sends nothing more.
    await e.app.bridge.handoffs.hours.digest();
    expect(digests()).toHaveLength(2);
  }, 60_000);

  test('/chatbot hours shows, sets, clears, and refuses bad input naming the field and the fix', async () => {
    /** `/chatbot hours <args>` as `user` in `channel`; the ephemeral answer that contains `marker`. */
    const hours = async (d: SlackDriver, channel: string, user: string, args: string, marker: string) => {
      const from = e.fake.ephemerals.length;
      await d.command('/chatbot', `hours ${args}`.trim(), { user, channel });
      return waitFor(
        () => e.fake.ephemerals.slice(from).find((m) => m.channel === channel && m.text.includes(marker)),
        `"${marker}" after /chatbot hours ${args}`,
      );
    };
    const shown = JSON.stringify(await hours(x, 'C0XGEN', OWNER_X, '', "This workspace's office hours"));
    expect(shown).toContain('Mon-Sat 09:00-17:00 (set with /chatbot hours)');
    expect(shown).toContain('America/New_York');
    expect(shown).toContain('desk@x.example');
    expect(shown).toContain('leads@x.example at 21:00 (set with /chatbot hours leads)');

    const bad = await hours(x, 'C0XGEN', OWNER_X, 'Mon-Fry 09:00-17:00', 'Office hours:');
    expect(bad.text).toContain(
      'Office hours: "Mon-Fry 09:00-17:00" names an unknown day: use Mon, Tue, Wed, Thu, Fri, Sat, Sun',
    );
    expect(bad.text).toContain('For example /chatbot hours Mon-Fri 09:00-17:00');
    const backwards = await hours(x, 'C0XGEN', OWNER_X, 'Mon-Fri 17:00-09:00', 'Office hours:');
    expect(backwards.text).toContain('closes before it opens: the closing time must be later the same day');
    // Refused input changed nothing.
    expect(JSON.stringify(await hours(x, 'C0XGEN', OWNER_X, '', "This workspace's office hours"))).toContain(
      'Mon-Sat 09:00-17:00 (set with /chatbot hours)',
    );

    const late = await hours(x, 'C0XGEN', OWNER_X, 'leads 25', 'Leads hour:');
    expect(late.text).toContain(
      'Leads hour: "25" must be an hour from 0 to 23 (office time). For example /chatbot hours leads 7',
    );
    const leads = await hours(x, 'C0XGEN', OWNER_X, 'leads default', "The day's leads: back to");
    expect(JSON.stringify(leads)).toContain("leads@x.example at 08:00 (the deployment's LEADS_DIGEST_HOUR)");

    const always = await hours(x, 'C0XGEN', OWNER_X, 'always', 'Office hours: always open');
    expect(JSON.stringify(always)).toContain('Always open (set hours with /chatbot hours)');
    const back = await hours(x, 'C0XGEN', OWNER_X, 'default', "Office hours: back to the deployment's");
    expect(JSON.stringify(back)).toContain("Mon-Fri 09:00-18:00 (the deployment's HANDOFF_HOURS)");

    // A member who is no admin may not change them, and Y's hours are Y's own still.
    await hours(y, 'C0YGEN', 'U0USER2', 'always', 'for admins only');
    const ys = JSON.stringify(await hours(y, 'C0YGEN', OWNER_Y, '', "This workspace's office hours"));
    expect(ys).toContain('Mon-Fri 09:00-17:00 (set with /chatbot hours)');
    expect(ys).toContain('Asia/Tokyo');
  }, 60_000);
});
