/**
 * The office as the chatbot's settings describe it: its clock (TimeZone, applied from chat, else
 * HANDOFF_TIMEZONE, else UTC), its hours (HANDOFF_HOURS), where tickets and the day's leads go by
 * e-mail (TalkToHumanEmail / EmailForDailyLeads, applied from chat; HANDOFF_EMAIL stands in for the
 * first). A value set from chat wins over the variable from then on.
 */
import type { CoreContext, OfficeConfig } from '../../context';
import { readAppliedSettings } from '../../settings/applied';
import { describeOpening, nextOpening, type OfficeHours } from './office-hours';
import { isTimeZone } from './zoned-time';

export const ALWAYS_OPEN: OfficeConfig = { escalate: [], assign: 'none', offerMs: 120_000, digestHour: 8 };

export interface Office {
  timeZone: string;
  /** Undefined: always open. */
  hours?: OfficeHours;
  /** TalkToHumanEmail (or HANDOFF_EMAIL). */
  ticketEmail?: string;
  /** EmailForDailyLeads. */
  leadsEmail?: string;
}

function nonBlank(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The office now: read each time, so a setting applied from chat counts from the next ticket on. */
export async function readOffice(ctx: CoreContext): Promise<Office> {
  const config = ctx.config.office ?? ALWAYS_OPEN;
  const applied = await readAppliedSettings(ctx);
  const chosen = nonBlank(applied.TimeZone);
  // A TimeZone Intl does not know (the service takes any text) cannot place the hours: the variable stands in.
  const timeZone = chosen && isTimeZone(chosen) ? chosen : (config.timeZone ?? 'UTC');
  const office: Office = { timeZone };
  if (config.hours) office.hours = { windows: config.hours, timeZone };
  const ticketEmail = nonBlank(applied.TalkToHumanEmail) ?? config.email;
  if (ticketEmail) office.ticketEmail = ticketEmail;
  const leadsEmail = nonBlank(applied.EmailForDailyLeads);
  if (leadsEmail) office.leadsEmail = leadsEmail;
  return office;
}

/**
 * What the user is told after TalkToHumanResponseMessage when the office is closed: when agents are
 * back in the office's time, and (when the ticket is e-mailed) that the request has gone there too.
 */
export function afterHoursLines(office: Office, now: number, emailed: boolean): string[] {
  const back = nextOpening(office.hours, now);
  const lines = [
    back === undefined
      ? 'Our agents are away at the moment; your request waits for them.'
      : `Our agents are back ${describeOpening(back, office.timeZone, now)}. Your request waits for them here.`,
  ];
  if (emailed && office.ticketEmail) lines.push(`Your request has also been sent to ${office.ticketEmail} by e-mail.`);
  return lines;
}
