/**
 * The office settings that apply to a tenant, in words (shown by /chatbot connect and /chatbot hours):
 * its hours (its own `/chatbot hours`, else HANDOFF_HOURS) and time zone (its chatbot's TimeZone, else
 * HANDOFF_TIMEZONE), and where tickets and the day's leads are e-mailed (its chatbot's
 * TalkToHumanEmail, or HANDOFF_EMAIL only for tenants on the deployment's chatbot; EmailForDailyLeads,
 * at its own `/chatbot hours leads` hour or LEADS_DIGEST_HOUR).
 */
import type { OfficeScope } from '../context';
import { readOffice } from '../handoff/hours/office';
import type { OfficeWindow } from '../handoff/hours/office-hours';
import { describeRules } from '../handoff/rules';
import type { Card } from '../surface';

/** Monday first, as people write a week. */
const WEEK = [1, 2, 3, 4, 5, 6, 0];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function clock(min: number): string {
  return `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
}

/** Windows as they are written (`/chatbot hours`, HANDOFF_HOURS): "Mon-Fri 09:00-17:00, Sat 10:00-14:00". */
export function describeHours(windows: readonly OfficeWindow[]): string {
  const groups: Array<{ from: number; to: number; startMin: number; endMin: number }> = [];
  const ordered = [...windows].sort(
    (a, b) => a.startMin - b.startMin || a.endMin - b.endMin || WEEK.indexOf(a.weekday) - WEEK.indexOf(b.weekday),
  );
  for (const w of ordered) {
    const last = groups.at(-1);
    const next = WEEK.indexOf(w.weekday);
    if (last && last.startMin === w.startMin && last.endMin === w.endMin && next === last.to + 1) last.to = next;
    else groups.push({ from: next, to: next, startMin: w.startMin, endMin: w.endMin });
  }
  groups.sort((a, b) => a.from - b.from || a.startMin - b.startMin);
  return groups
    .map((g) => {
      const days = g.from === g.to ? DAYS[WEEK[g.from]!] : `${DAYS[WEEK[g.from]!]}-${DAYS[WEEK[g.to]!]}`;
      return `${days} ${clock(g.startMin)}-${clock(g.endMin)}`;
    })
    .join(', ');
}

/** The office of `ctx`'s tenant as card fields. */
export async function officeFields(ctx: OfficeScope): Promise<Card['fields']> {
  const office = await readOffice(ctx);
  const own = ctx.chatbot?.kind === 'own';
  // The operator's addresses are not shown to a guest of the shared chatbot.
  const guest = ctx.chatbot?.kind === 'shared';
  const hours = office.hours
    ? `${describeHours(office.hours.windows)} (${office.hoursFrom === 'tenant' ? 'set with /chatbot hours' : "the deployment's HANDOFF_HOURS"})`
    : 'Always open (set hours with /chatbot hours)';
  const tickets = guest
    ? office.ticketEmail
      ? "the deployment's address (not shown)"
      : 'nobody'
    : office.ticketEmail
      ? `${office.ticketEmail}${office.ticketEmailFrom === 'environment' ? " (the deployment's HANDOFF_EMAIL)" : ''}`
      : own
        ? 'nobody (set TalkToHumanEmail with /chatbot set)'
        : 'nobody (no TalkToHumanEmail or HANDOFF_EMAIL)';
  return [
    { label: 'Office hours', value: hours },
    { label: 'Time zone', value: office.timeZone },
    { label: 'Tickets e-mailed to', value: tickets },
    {
      label: 'Daily leads e-mailed to',
      value: office.leadsEmail
        ? `${guest ? "the deployment's address (not shown)" : office.leadsEmail} at ${String(office.digestHour).padStart(2, '0')}:00 (${office.digestHourFrom === 'tenant' ? 'set with /chatbot hours leads' : "the deployment's LEADS_DIGEST_HOUR"})`
        : 'nobody (set EmailForDailyLeads with /chatbot set)',
    },
    {
      label: 'Handoff settings',
      value: describeRules(ctx.config, office.ownRules)
        .map((r) => `${r.name} ${r.value}${r.from === 'office' ? ' (this office)' : ''}`)
        .join('\n'),
    },
  ];
}
