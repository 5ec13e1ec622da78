/**
 * The office of a tenant: its chatbot's settings (TimeZone, TalkToHumanEmail, EmailForDailyLeads,
 * applied from chat) and its own hours (`/chatbot hours`), over the environment's HANDOFF_* variables.
 * A value set from chat wins over the variable from then on.
 */
import type { OfficeConfig, OfficeScope, UnconnectedScope } from '../../context';
import { type AppliedSettings, readAppliedSettings } from '../../settings/applied';
import type { OfficeHandoffRules, OfficeRecord } from '../../tenants/office-record';
import { storedOffices } from '../../tenants/offices';
import { type HandoffRules, officeRules } from '../rules';
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
  /** Whose hours apply: the tenant's own (`/chatbot hours`) or HANDOFF_HOURS; absent: none, always open. */
  hoursFrom?: 'tenant' | 'environment';
  /** Where `ticketEmail` came from: the chatbot's TalkToHumanEmail or the operator's HANDOFF_EMAIL. */
  ticketEmailFrom?: 'chatbot' | 'environment';
  /** The local hour the day's leads go out: the tenant's own (`/chatbot hours leads`) or LEADS_DIGEST_HOUR. */
  digestHour: number;
  digestHourFrom: 'tenant' | 'environment';
  /** Its handoff rules: its own (`/handoff settings`) over the deployment's (handoff/rules.ts). */
  rules: HandoffRules;
  /** Which of them it set itself. */
  ownRules?: OfficeHandoffRules;
}

/** What the scope's tenant set with `/chatbot hours` (its enterprise's, for an org-wide install). */
async function tenantRecord(ctx: Pick<UnconnectedScope, 'store' | 'canonical'>): Promise<OfficeRecord | undefined> {
  return storedOffices(ctx).of(ctx.canonical);
}

/** The handoff rules of the scope's office: its own `/handoff settings` over the deployment's. */
export async function rulesOf(ctx: Pick<UnconnectedScope, 'store' | 'canonical' | 'config'>): Promise<HandoffRules> {
  return officeRules(ctx.config, (await tenantRecord(ctx))?.handoff);
}

function nonBlank(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * The office of the context's tenant now, read each time, so a setting applied from chat counts from
 * the next ticket on: its clock (its chatbot's TimeZone, else HANDOFF_TIMEZONE, else UTC), its hours
 * and its leads' hour (its own `/chatbot hours`, else HANDOFF_HOURS and LEADS_DIGEST_HOUR), where tickets and the day's leads go by e-mail (its
 * chatbot's TalkToHumanEmail / EmailForDailyLeads). HANDOFF_EMAIL is the operator's address: it
 * stands in for TalkToHumanEmail only where the environment's chatbot serves the tenant, never for a
 * tenant that connected its own (its tickets are not the operator's to read).
 */
export async function readOffice(ctx: OfficeScope): Promise<Office> {
  const config = ctx.config.office ?? ALWAYS_OPEN;
  const chatbot = ctx.chatbot;
  const [applied, record] = await Promise.all([
    chatbot ? readAppliedSettings({ ...ctx, chatbot }) : Promise.resolve<AppliedSettings>({}),
    tenantRecord(ctx),
  ]);
  const own = record?.hours;
  const chosen = nonBlank(applied.TimeZone);
  // A TimeZone Intl does not know (the service takes any text) cannot place the hours: the variable stands in.
  const timeZone = chosen && isTimeZone(chosen) ? chosen : (config.timeZone ?? 'UTC');
  const office: Office = {
    timeZone,
    digestHour: record?.digestHour ?? config.digestHour,
    digestHourFrom: record?.digestHour !== undefined ? 'tenant' : 'environment',
    rules: officeRules(ctx.config, record?.handoff),
  };
  if (record?.handoff) office.ownRules = record.handoff;
  const windows = own ?? config.hours;
  if (windows && windows !== 'always') {
    office.hours = { windows, timeZone };
    office.hoursFrom = own ? 'tenant' : 'environment';
  }
  // The shared chatbot's addresses are the operator's: a guest's tickets are not mailed there.
  const guest = chatbot?.kind === 'shared';
  const fromChatbot = guest ? undefined : nonBlank(applied.TalkToHumanEmail);
  // HANDOFF_EMAIL is the operator's office's: never a tenant's own, a guest's or one with no chatbot.
  const standIn = chatbot?.kind === 'operator' ? config.email : undefined;
  if (fromChatbot) Object.assign(office, { ticketEmail: fromChatbot, ticketEmailFrom: 'chatbot' });
  else if (standIn) Object.assign(office, { ticketEmail: standIn, ticketEmailFrom: 'environment' });
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
