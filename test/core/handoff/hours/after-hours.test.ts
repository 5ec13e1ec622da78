/**
 * A ticket opened outside office hours, over the real SMTP protocol (an SMTP server on 127.0.0.1)
 * and an injected clock: the user gets TalkToHumanResponseMessage, when agents are back in the
 * office's time and that the request went by e-mail; the ticket is marked and e-mailed (To, subject
 * naming the user and the city, lead, transcript, links, both parts); reminders wait for office
 * hours; after the last reminder the still unclaimed ticket is e-mailed again. A restart between the
 * ticket and its e-mail (the server refusing meanwhile) sends it once, and the queue shows the failure;
 * an "unclaimed" e-mail refused and then overtaken by a claim is dropped, not sent late.
 */
import { parseHours, type OfficeWindow } from '../../../../src/core/handoff/hours/office-hours';
import { NOTICE_BOX } from '../../../../src/core/handoff/notice';
import { appliedSettingsKey } from '../../../../src/core/settings/applied';
import type { MessageRef, Place } from '../../../../src/core/surface';
import { smtpMailer, type Mailer } from '../../../../src/mail/mailer';
import { startCoreHarness, type CoreHarness } from '../../../support/core-harness';
import { startSmtpSink, type SmtpSink } from '../../../support/smtp-sink';
import { waitFor } from '../../../../fakes/wait-for';

const utc = (iso: string): number => Date.parse(`${iso}Z`);
const MIN = 60_000;
const RESPONSE = 'Thanks for reaching out! A Skyline agent will get back to you.';

function windows(spec: string): OfficeWindow[] {
  const w = parseHours(spec);
  if (typeof w === 'string') throw new Error(w);
  return w;
}

describe('handoff outside office hours', () => {
  let sink: SmtpSink;
  let h: CoreHarness;
  const mailers: Mailer[] = [];
  let clock = utc('2026-03-07T03:00:00'); // Friday 6 March, 21:00 in Chicago: closed until Monday 09:00

  /** What main.ts hands core from the environment, on this harness (again after a restart). */
  function configure(harness: CoreHarness): void {
    const mailer = smtpMailer({ url: sink.url, from: 'Skyline Bot <bot@skyline.example>' });
    mailers.push(mailer);
    harness.ctx.mailer = mailer;
    harness.ctx.now = () => clock;
    harness.config.handoffRemindMs = 5 * MIN;
    harness.config.office = {
      hours: windows('Mon-Fri 09:00-18:00'),
      timeZone: 'America/Chicago',
      email: 'env-agents@skyline.example',
      escalate: [],
      assign: 'none',
      offerMs: 2 * MIN,
      digestHour: 8,
    };
    harness.surface.directory.permalink = async (ref: MessageRef) =>
      `https://chat.example/${ref.place.channel}/${ref.id}`;
  }

  beforeAll(async () => {
    sink = await startSmtpSink({ user: 'bridge', pass: 'mail-secret' });
    h = await startCoreHarness({ start: false });
    configure(h);
    // Applied from chat: they win over HANDOFF_EMAIL and the default message.
    await h.store.set(appliedSettingsKey(h.config.chatbotId), {
      TalkToHumanResponseMessage: RESPONSE,
      TalkToHumanEmail: 'agents@skyline.example',
    });
  });
  afterAll(async () => {
    for (const m of mailers) m.close();
    await h.close();
    await sink.close();
  });

  const ask = async (harness: CoreHarness, question: string): Promise<Place> => {
    await harness.bridge.command(harness.invocation(harness.users.alice), 'ask', question);
    const starts = harness.surface.calls.filter(
      (c) => c.op === 'startThread' && c.place?.channel === harness.channel.channel,
    );
    const thread = starts[starts.length - 1]!.place!;
    await harness.bridge.conversations.idle();
    return thread;
  };
  const ticketThread = (harness: CoreHarness): Place =>
    harness.surface.calls
      .filter((c) => c.op === 'startThread' && c.place?.channel === harness.handoffChannel.channel)
      .at(-1)!.place!;
  const reminders = (harness: CoreHarness): string[] =>
    harness.surface
      .messagesIn(ticketThread(harness))
      .map((m) => m.current.text)
      .filter((t) => t.startsWith('Reminder'));

  it('the user is told when agents are back and that it went by e-mail; the ticket is marked and e-mailed', async () => {
    const thread = await ask(h, 'I am looking for a 3 bedroom house in Austin, reach me at alice@example.com');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'please call me');
    const notice = h.surface.messagesIn(thread).find((m) => m.current.text.startsWith(RESPONSE))!;
    expect(notice.current.text).toBe(
      `${RESPONSE}\nOur agents are back Monday at 9:00 AM (Central Time). Your request waits for them here.\n` +
        'Your request has also been sent to agents@skyline.example by e-mail.',
    );
    const ticketMsg = h.surface.messagesIn(h.handoffChannel).at(-1)!;
    expect(ticketMsg.current.text.split('\n')[1]).toBe('After hours: opened outside office hours');
    const [ticket] = await h.bridge.handoffs.allTickets();
    expect(ticket?.afterHours).toBe(true);

    await waitFor(() => sink.mails.length === 1, 'the after-hours e-mail', 10_000);
    const mail = sink.mails[0]!;
    expect(mail.to).toEqual(['agents@skyline.example']);
    expect(mail.subject).toBe('After-hours handoff: Alice (Austin)');
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('They were told agents are back Monday at 9:00 AM (Central Time).');
      expect(part).toContain('E-mail: alice@example.com');
      expect(part).toContain('Bedrooms: 3');
      expect(part).toContain('I am looking for a 3 bedroom house in Austin');
      expect(part).toContain(`https://chat.example/${h.handoffChannel.channel}/${ticket!.root!.id}`);
    }
    expect(mail.text).toMatch(
      /^Ticket: https:\/\/chat\.example\/C-handoff\/.+\nConversation: https:\/\/chat\.example\/C-general\//m,
    );
    expect(mail.html).toMatch(/<a href="https:\/\/chat\.example\/C-handoff\/[^"]+">Ticket<\/a>/);

    // Over the weekend no reminder: they count office time only.
    clock = utc('2026-03-08T18:00:00'); // Sunday noon in Chicago
    await h.bridge.handoffs.sweepUnclaimed();
    expect(reminders(h)).toEqual([]);
    // Monday 9 March (daylight time since Sunday): 09:04 CDT is 4 minutes of office time.
    clock = utc('2026-03-09T14:04:00');
    await h.bridge.handoffs.sweepUnclaimed();
    expect(reminders(h)).toEqual([]);
    clock = utc('2026-03-09T14:05:00');
    await h.bridge.handoffs.sweepUnclaimed();
    expect(reminders(h)).toHaveLength(1);
    // The wait it names is office time too: 5 minutes since Monday 09:00, not the weekend.
    expect(reminders(h)[0]).toBe(
      'Reminder (1 of 3): Alice has been waiting 5 min in office hours for an agent. Press Claim on the ticket to take it.',
    );
    // Nothing more is e-mailed until the last reminder.
    expect(sink.mails).toHaveLength(1);
  });

  it('still unclaimed after its last reminder in office hours: e-mailed again, once', async () => {
    for (const at of ['2026-03-09T14:10:00', '2026-03-09T14:15:00']) {
      clock = utc(at);
      await h.bridge.handoffs.sweepUnclaimed();
    }
    expect(reminders(h)).toHaveLength(3);
    await waitFor(() => sink.mails.length === 2, 'the unclaimed-ticket e-mail', 10_000);
    const mail = sink.mails[1]!;
    expect(mail.to).toEqual(['agents@skyline.example']);
    expect(mail.subject).toBe('Unclaimed handoff: Alice (Austin)');
    expect(mail.text).toContain('nobody has claimed the ticket after every reminder');
    expect(mail.html).toContain('nobody has claimed the ticket after every reminder');
    clock += MIN;
    await h.bridge.handoffs.sweepUnclaimed();
    await h.bridge.handoffs.drain();
    expect(sink.mails).toHaveLength(2);
  });

  it('a restart between the ticket and its e-mail (the server refusing meanwhile): one e-mail, the failure shown in the queue', async () => {
    clock = utc('2026-03-10T02:00:00'); // Monday 21:00 CDT: closed
    const before = sink.mails.length;
    sink.refuseNext(1);
    const thread = await ask(h, 'Any condos for sale in Dallas?');
    await h.bridge.command(h.invocation(h.users.bob, thread), 'handoff', '');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'call me tomorrow');
    await waitFor(() => sink.refused >= 1, 'the refusal', 10_000);
    const queue = h.invocation(h.users.admin, h.handoffChannel);
    await h.bridge.command(queue, 'handoff', 'queue');
    expect(queue.texts().at(-1)).toMatch(
      /E-mail not sent yet: "After-hours handoff: Alice \(Dallas\)": 451 .*mailbox busy.* \(try 1, next in 30 s\)/,
    );
    // The process goes away before any retry; another comes up on the same store.
    h = await h.restart();
    configure(h);
    clock += 31_000;
    await Promise.all([h.bridge.handoffs.sweepUnclaimed(), h.bridge.handoffs.drain()]);
    await h.bridge.handoffs.drain();
    await waitFor(() => sink.mails.length === before + 1, 'the e-mail after the restart', 10_000);
    expect(sink.mails.at(-1)!.subject).toBe('After-hours handoff: Alice (Dallas)');
    await h.bridge.handoffs.sweepUnclaimed();
    await h.bridge.handoffs.drain();
    expect(sink.mails).toHaveLength(before + 1);
    const after = h.invocation(h.users.admin, h.handoffChannel);
    await h.bridge.command(after, 'handoff', 'queue');
    expect(after.texts().at(-1)).not.toMatch(/E-mail not sent/);
  });

  it("the day's leads go out through the bridge at LEADS_DIGEST_HOUR office time, once", async () => {
    await h.store.set(appliedSettingsKey(h.config.chatbotId), {
      TalkToHumanResponseMessage: RESPONSE,
      TalkToHumanEmail: 'agents@skyline.example',
      EmailForDailyLeads: 'leads@skyline.example',
    });
    const before = sink.mails.length;
    clock = utc('2026-03-10T12:59:00'); // Tuesday 07:59 CDT: Monday's digest not yet due
    await h.bridge.handoffs.hours.digest();
    expect(sink.mails.slice(before).map((m) => m.subject)).not.toContain('Leads of 2026-03-09: 1 handoff ticket');
    clock = utc('2026-03-10T13:00:00');
    await Promise.all([h.bridge.handoffs.hours.digest(), h.bridge.handoffs.hours.digest()]);
    await h.bridge.handoffs.drain();
    const digest = sink.mails.filter((m) => m.subject === 'Leads of 2026-03-09: 1 handoff ticket');
    expect(digest).toHaveLength(1);
    expect(digest[0]!.to).toEqual(['leads@skyline.example']);
    expect(digest[0]!.text).toMatch(
      /1\. Alice\n {3}State: Waiting\n {3}Handled by: nobody\n {3}Time to claim: not claimed/,
    );
    expect(digest[0]!.text).toContain('City: Dallas');
    expect(digest[0]!.html).toContain('<h3>1. Alice</h3>');
  });

  it('the e-mail is owed in the ticket change itself: a crash right after it, before any notice, still sends one', async () => {
    clock = utc('2026-03-11T03:00:00'); // Tuesday 22:00 CDT: closed
    const before = sink.mails.length;
    const thread = await ask(h, 'Any lofts for sale in Houston?');
    // The process stops between the ticket's one atomic step and its notices (never set in production).
    h.config.testPauses = { beforeNotices: true };
    void h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'before the crash');
    const owed = await waitFor(async () => {
      const pending = await h.store.pendingIntents<{ kind: string; reason?: string }>(NOTICE_BOX, 100);
      return pending.some((i) => i.value.kind === 'mail') && pending;
    }, 'the new ticket with its notices');
    expect(owed.map((i) => i.value.kind)).toEqual(['post', 'open', 'mail', 'strip']);
    expect(owed.find((i) => i.value.kind === 'mail')?.value.reason).toBe('afterhours');
    expect(sink.mails).toHaveLength(before);
    delete h.config.testPauses;

    h = await h.restart();
    configure(h);
    await h.bridge.handoffs.drain();
    const mail = await waitFor(() => sink.mails[before], 'the e-mail after the restart', 10_000);
    expect(mail.subject).toBe('After-hours handoff: Alice (Houston)');
    const ticket = (await h.bridge.handoffs.allTickets()).find((t) => t.reason === 'before the crash');
    expect(mail.text).toContain(`https://chat.example/${h.handoffChannel.channel}/${ticket!.root!.id}`);
    await h.bridge.handoffs.drain();
    await h.bridge.handoffs.sweepUnclaimed();
    expect(sink.mails).toHaveLength(before + 1);
  });

  it('an unclaimed-ticket e-mail refused, then the ticket claimed: not sent late, and gone from the queue', async () => {
    // The Houston ticket from before is still waiting: its reminders and e-mail go out first.
    for (const at of ['2026-03-11T14:20:00', '2026-03-11T14:30:00', '2026-03-11T14:40:00']) {
      clock = utc(at);
      await h.bridge.handoffs.sweepUnclaimed();
    }
    await waitFor(() => sink.mails.some((m) => m.subject === 'Unclaimed handoff: Alice (Houston)'), 'Houston');
    clock = utc('2026-03-11T15:00:00'); // Wednesday 10:00 CDT: open
    const before = sink.mails.length;
    const thread = await ask(h, 'Any townhouses for rent in Plano?');
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'refused then claimed');
    const refused = sink.refused;
    sink.refuseNext(1);
    for (const minutes of [5, 10, 15]) {
      clock = utc('2026-03-11T15:00:00') + minutes * MIN;
      await h.bridge.handoffs.sweepUnclaimed();
    }
    expect(sink.refused).toBe(refused + 1);
    // The refusal is recorded once the client has read it: the queue shows it then.
    const shown = await waitFor(async () => {
      const queue = h.invocation(h.users.admin, h.handoffChannel);
      await h.bridge.command(queue, 'handoff', 'queue');
      const text = queue.texts().at(-1) ?? '';
      return /E-mail not sent yet/.test(text) && text;
    }, 'the refused unclaimed-ticket e-mail in the queue');
    expect(shown).toMatch(/E-mail not sent yet: "Unclaimed handoff: Alice \(Plano\)": 451 /);

    const ticketMsg = h.surface.messagesIn(h.handoffChannel).at(-1)!;
    await h.bridge.action(
      h.invocation(h.agents.ann, h.handoffChannel, { source: ticketMsg.ref }),
      'handoff.claim',
      ticketMsg.current.buttons!.find((b) => b.action === 'handoff.claim')!.value,
    );
    expect(ticketMsg.current.text).toMatch(/^Claimed by Ann Agent/);
    // The retry comes due: the ticket has an agent now, so the mail is dropped, not sent late.
    clock += 31_000;
    await h.bridge.handoffs.drain();
    await h.bridge.handoffs.sweepUnclaimed();
    expect(sink.mails).toHaveLength(before);
    const after = h.invocation(h.users.admin, h.handoffChannel);
    await h.bridge.command(after, 'handoff', 'queue');
    expect(after.texts().at(-1)).not.toMatch(/E-mail not sent/);
  });
});
