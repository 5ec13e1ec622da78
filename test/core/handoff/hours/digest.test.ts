/**
 * The day's leads on an injected clock, over the real SMTP protocol: due at LEADS_DIGEST_HOUR in the
 * office's time zone, the previous local day's tickets in one e-mail, once per day across two
 * instances, and late after a restart when its hour passed while the bridge was down.
 */
import type { CoreConfig, CoreContext } from '../../../../src/core/context';
import { CoreMemory } from '../../../../src/core/memory';
import { dueDigestDay } from '../../../../src/core/handoff/hours/digest';
import { checkLeadsDigest } from '../../../../src/core/handoff/hours/leads-digest';
import { noteLead } from '../../../../src/core/handoff/hours/leads-index';
import { extractLead } from '../../../../src/core/handoff/lead';
import type { Ticket } from '../../../../src/core/handoff/model';
import { appliedSettingsKey } from '../../../../src/core/settings/applied';
import { smtpMailer } from '../../../../src/mail/mailer';
import { MailOutbox } from '../../../../src/mail/outbox';
import { SqliteStore } from '../../../../src/state/sqlite-store';
import { startSmtpSink, type SmtpSink } from '../../../support/smtp-sink';
import { silentLog } from '../../../support/silent-log';

const utc = (iso: string): number => Date.parse(`${iso}Z`);
const log = silentLog;
const place = { surface: 'slack' as const, workspace: 'T1', channel: 'C1', thread: '1.1' };

function ticket(id: string, name: string, createdAt: number, more: Partial<Ticket> = {}): Ticket {
  return {
    id,
    convId: `conv-${id}`,
    status: 'open',
    user: { id: `U-${id}`, name, isAdmin: false },
    userPlace: place,
    reason: 'please call me',
    createdAt,
    ...more,
  };
}

describe('dueDigestDay', () => {
  it('is yesterday in the office time once the hour has passed there, else the day before', () => {
    // 13:59 UTC is 07:59 in Chicago (CST): the digest of the 2nd is not due yet, the 1st's is.
    expect(dueDigestDay(utc('2026-03-03T13:59:00'), 'America/Chicago', 8).date).toBe('2026-03-01');
    const day = dueDigestDay(utc('2026-03-03T14:00:00'), 'America/Chicago', 8);
    expect(day).toEqual({ date: '2026-03-02', from: utc('2026-03-02T06:00:00'), to: utc('2026-03-03T06:00:00') });
    // Across the spring-forward night the day is 23 hours long.
    const short = dueDigestDay(utc('2026-03-09T14:00:00'), 'America/Chicago', 8);
    expect(short.to - short.from).toBe(23 * 3600_000);
  });
});

describe('the daily leads e-mail', () => {
  let sink: SmtpSink;
  let store: SqliteStore;
  let clock = utc('2026-03-03T13:00:00'); // 07:00 in Chicago
  const mailer = () => smtpMailer({ url: sink.url, from: 'bot@example.com' });

  const tickets = [
    // 2 March in Chicago: 00:30 CST is 06:30 UTC.
    ticket('t1', 'Alice', utc('2026-03-02T06:30:00'), {
      status: 'closed',
      claimedBy: { id: 'A1', name: 'Ann Agent', isAdmin: false },
      firstClaimedAt: utc('2026-03-02T06:34:00'),
      rating: 5,
    }),
    ticket('t2', 'Bob', utc('2026-03-03T05:59:00'), { status: 'timedout' }),
    // 28 February 23:59 CST and 3 March 00:00 CST: other days.
    ticket('t0', 'Old', utc('2026-03-01T05:59:00')),
    ticket('t3', 'New', utc('2026-03-03T06:00:00')),
  ];

  beforeAll(async () => {
    sink = await startSmtpSink();
    store = new SqliteStore(':memory:');
    // Each ticket's lead indexed as the ticket store does with the ticket's first write.
    for (const t of tickets) await noteLead(store, t, 86_400_000);
  });
  afterAll(async () => {
    await store.close();
    await sink.close();
  });

  function instance(id: string) {
    const config: CoreConfig = {
      chatbotId: 'demo',
      answerIdleTimeoutMs: 1000,
      handoff: {},
      handoffClaimTimeoutMs: 60_000,
      handoffOnNoAnswer: false,
      instanceId: id,
      office: { timeZone: 'America/Chicago', escalate: [], assign: 'none', offerMs: 60_000, digestHour: 8 },
    };
    const m = mailer();
    const ctx = { store, config, log, now: () => clock, mailer: m, memory: new CoreMemory() } as unknown as CoreContext;
    const outbox = new MailOutbox({ store, log, mailer: m, instanceId: id, now: () => clock, retentionMs: 86_400_000 });
    const deps = {
      ctx,
      outbox,
      load: async (id: string) => tickets.find((t) => t.id === id),
      leadOf: async (t: Ticket) =>
        extractLead({
          name: t.user.name,
          userTexts: [`I'm ${t.user.name}, alice@example.com, looking in Austin for 3 bedrooms`],
          answerTexts: [],
        }),
    };
    return { deps, outbox, close: () => m.close() };
  }

  it('goes out once at the digest hour in office time, to EmailForDailyLeads, with each ticket of the day', async () => {
    await store.set(appliedSettingsKey('demo'), { EmailForDailyLeads: 'leads@example.com' });
    const a = instance('i1');
    const b = instance('i2');
    // 07:00 in Chicago: the 2nd's digest is not due; the 1st had no tickets.
    expect(await checkLeadsDigest(a.deps)).toBe(false);
    clock = utc('2026-03-03T14:00:00'); // 08:00 CST
    const owed = await Promise.all([checkLeadsDigest(a.deps), checkLeadsDigest(b.deps)]);
    expect(owed.filter(Boolean)).toHaveLength(1);
    await Promise.all([a.outbox.drain(), b.outbox.drain()]);
    expect(sink.mails).toHaveLength(1);
    const mail = sink.mails[0]!;
    expect(mail.to).toEqual(['leads@example.com']);
    expect(mail.subject).toBe('Leads of 2026-03-02: 2 handoff tickets');
    expect(mail.text).toMatch(
      /1\. Alice\n {3}State: Closed\n {3}Handled by: Ann Agent\n {3}Time to claim: 4 min\n {3}Rating: 5\/5/,
    );
    expect(mail.text).toMatch(
      /2\. Bob\n {3}State: Timed out\n {3}Handled by: nobody\n {3}Time to claim: not claimed\n {3}Rating: not rated/,
    );
    expect(mail.text).toMatch(/alice@example\.com/);
    expect(mail.text).not.toMatch(/Old|New/);
    expect(mail.html).toMatch(/<h3>1\. Alice<\/h3>.*<b>Handled by:<\/b> Ann Agent/s);
    // Later checks the same day add nothing.
    clock += 3600_000;
    expect(await checkLeadsDigest(a.deps)).toBe(false);
    a.close();
    b.close();
  });

  it('a digest whose hour passed while the bridge was down goes out late, after the restart', async () => {
    // Down from 07:00 to 11:00 Chicago time on the 4th: the 3rd's digest goes out on the first check.
    clock = utc('2026-03-04T17:00:00');
    const restarted = instance('i3');
    expect(await checkLeadsDigest(restarted.deps)).toBe(true);
    await restarted.outbox.drain();
    expect(sink.mails.map((m) => m.subject)).toEqual([
      'Leads of 2026-03-02: 2 handoff tickets',
      'Leads of 2026-03-03: 1 handoff ticket',
    ]);
    restarted.close();
  });
});
