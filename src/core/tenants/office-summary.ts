/**
 * The office settings that already apply to a tenant, in words, shown when its chatbot is connected:
 * hours and time zone (HANDOFF_HOURS, the chatbot's TimeZone or HANDOFF_TIMEZONE), and where tickets
 * and the day's leads are e-mailed (TalkToHumanEmail or HANDOFF_EMAIL, EmailForDailyLeads).
 */
import type { CoreContext } from '../context';
import { readOffice } from '../handoff/hours/office';
import type { OfficeWindow } from '../handoff/hours/office-hours';
import type { Card } from '../surface';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function clock(min: number): string {
  return `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
}

function describeWindows(windows: readonly OfficeWindow[]): string {
  return windows.map((w) => `${DAYS[w.weekday] ?? '?'} ${clock(w.startMin)}-${clock(w.endMin)}`).join(', ');
}

/** The office of `ctx`'s chatbot as card fields. */
export async function officeFields(ctx: CoreContext): Promise<Card['fields']> {
  const office = await readOffice(ctx);
  return [
    { label: 'Office hours', value: office.hours ? describeWindows(office.hours.windows) : 'Always open' },
    { label: 'Time zone', value: office.timeZone },
    { label: 'Tickets e-mailed to', value: office.ticketEmail ?? 'nobody (no TalkToHumanEmail or HANDOFF_EMAIL)' },
    { label: 'Daily leads e-mailed to', value: office.leadsEmail ?? 'nobody (no EmailForDailyLeads)' },
  ];
}
