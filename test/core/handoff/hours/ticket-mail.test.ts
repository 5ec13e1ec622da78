/** The ticket e-mail's content, the office as the settings describe it, and the response target's steps. */
import type { CoreContext } from '../../../../src/core/context';
import { CoreMemory } from '../../../../src/core/memory';
import { afterHoursLines, readOffice } from '../../../../src/core/handoff/hours/office';
import { missedByLine, targetStep } from '../../../../src/core/handoff/hours/response-target';
import { ticketMail } from '../../../../src/core/handoff/hours/ticket-mail';
import { extractLead } from '../../../../src/core/handoff/lead';
import type { Ticket } from '../../../../src/core/handoff/model';
import { appliedSettingsKey } from '../../../../src/core/settings/applied';
import { SqliteStore } from '../../../../src/state/sqlite-store';
import { scopeAt } from '../../../support/tenant-scope';
import { silentLog } from '../../../support/silent-log';

const utc = (iso: string): number => Date.parse(`${iso}Z`);

const ticket: Ticket = {
  id: 'abc123',
  convId: 'c1',
  status: 'open',
  user: { id: 'U1', name: 'Alice <script>', isAdmin: false },
  userPlace: { surface: 'slack', workspace: 'T1', channel: 'C1', thread: '1.1' },
  reason: 'call me & soon',
  createdAt: utc('2026-03-07T03:00:00'),
  ticketLink: 'https://example.slack.com/archives/C9/p1',
  userLink: 'https://example.slack.com/archives/C1/p1',
};

it('the ticket e-mail names the user and the city, carries the lead, the transcript and both links, in two parts', () => {
  const lead = extractLead({
    name: ticket.user.name,
    userTexts: ['Hi, alice@example.com, 512-555-0100, a 3 bedroom in Austin under $500k'],
    answerTexts: [],
  });
  const mail = ticketMail({
    ticket,
    lead,
    transcript: [
      { author: 'Alice', text: 'Hi, alice@example.com, 512-555-0100, a 3 bedroom in Austin under $500k', at: 1 },
      { author: 'Bot', text: 'Here are <b>homes</b>', at: 2 },
    ],
    reason: 'afterhours',
    to: 'agents@example.com',
    backAt: 'Monday at 9:00 AM (Central Time)',
  });
  expect(mail.to).toBe('agents@example.com');
  expect(mail.subject).toBe('After-hours handoff: Alice <script> (Austin)');
  expect(mail.text).toMatch(/They were told agents are back Monday at 9:00 AM \(Central Time\)/);
  expect(mail.text).toMatch(/- E-mail: alice@example\.com/);
  expect(mail.text).toMatch(/Bot: Here are <b>homes<\/b>/);
  expect(mail.text).toMatch(
    /Ticket: https:\/\/example\.slack\.com\/archives\/C9\/p1\nConversation: https:\/\/example\.slack\.com\/archives\/C1\/p1/,
  );
  // The HTML part escapes what users wrote.
  expect(mail.html).toMatch(/Alice &lt;script&gt; asked for a human outside office hours/);
  expect(mail.html).toMatch(/Here are &lt;b&gt;homes&lt;\/b&gt;/);
  expect(mail.html).toMatch(/<a href="https:\/\/example\.slack\.com\/archives\/C9\/p1">Ticket<\/a>/);
  expect(mail.html).not.toMatch(/<script>/);
  const unclaimed = ticketMail({ ticket, lead, transcript: [], reason: 'unclaimed', to: 'x@example.com' });
  expect(unclaimed.subject).toBe('Unclaimed handoff: Alice <script> (Austin)');
});

it('the office: a TimeZone and TalkToHumanEmail applied from chat win over the variables', async () => {
  const store = new SqliteStore(':memory:');
  const ctx = {
    store,
    config: {
      chatbotId: 'demo',
      office: {
        hours: [{ weekday: 1, startMin: 540, endMin: 1080 }],
        timeZone: 'Europe/London',
        email: 'env@example.com',
        escalate: [],
        assign: 'none',
        offerMs: 1,
        digestHour: 8,
      },
    },
    log: silentLog,
    now: () => 0,
    memory: new CoreMemory(),
  } as unknown as CoreContext;
  const scope = await scopeAt(ctx, { surface: 'slack', workspace: 'T1' });
  expect(await readOffice(scope)).toMatchObject({ timeZone: 'Europe/London', ticketEmail: 'env@example.com' });
  await store.set(appliedSettingsKey('demo'), { TimeZone: 'America/Chicago', TalkToHumanEmail: 'chat@example.com' });
  const office = await readOffice(scope);
  expect(office).toMatchObject({ timeZone: 'America/Chicago', ticketEmail: 'chat@example.com' });
  // Saturday night in Chicago: back Monday 09:00 there.
  expect(afterHoursLines(office, utc('2026-03-07T03:00:00'), true)).toEqual([
    'Our agents are back Monday at 9:00 AM (Central Time). Your request waits for them here.',
    'Your request has also been sent to chat@example.com by e-mail.',
  ]);
  expect(afterHoursLines(office, utc('2026-03-07T03:00:00'), false)).toHaveLength(1);
  // A TimeZone Intl does not know leaves the variable in charge.
  await store.set(appliedSettingsKey('demo'), { TimeZone: 'Central-ish' });
  expect((await readOffice(scope)).timeZone).toBe('Europe/London');
  await store.close();
});

it('the response target warns at 80% and escalates at 100% of office time, once each, never after a reply', () => {
  const claimed = { status: 'claimed', firstClaimedAt: 0 };
  expect(targetStep(claimed, 600_000, 479_000)).toBeUndefined();
  expect(targetStep(claimed, 600_000, 480_000)).toBe('warn');
  expect(targetStep({ ...claimed, targetWarnedAt: 1 }, 600_000, 500_000)).toBeUndefined();
  expect(targetStep({ ...claimed, targetWarnedAt: 1 }, 600_000, 600_000)).toBe('escalate');
  expect(targetStep({ ...claimed, escalatedAt: 1 }, 600_000, 900_000)).toBeUndefined();
  expect(targetStep({ ...claimed, firstReplyAt: 5 }, 600_000, 900_000)).toBeUndefined();
  expect(targetStep({ status: 'open' }, 600_000, 900_000)).toBeUndefined();
  expect(targetStep(claimed, undefined, 900_000)).toBeUndefined();
  expect(missedByLine(0)).toBe('Response target missed by 1 min');
  expect(missedByLine(7 * 60_000 - 1)).toBe('Response target missed by 7 min');
});
