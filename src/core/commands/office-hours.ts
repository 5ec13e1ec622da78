/**
 * `/chatbot hours` (admins): the tenant's own office hours, kept in its office record. Written as
 * HANDOFF_HOURS is (the same parser, the same reasons), they apply to its tickets from then on over
 * the deployment's HANDOFF_HOURS: the after-hours mark and notice, reminders and time-outs counted in
 * office time, round-robin offers, response targets. `always` keeps it open around the clock;
 * `default` goes back to the deployment's hours. `leads <hour>` sets the local hour of its day's
 * leads e-mail (LEADS_DIGEST_HOUR otherwise).
 */
import type { TenantScope } from '../context';
import { parseHours } from '../handoff/hours/office-hours';
import type { Invocation } from '../surface';
import type { OfficeRecord } from '../tenants/office-record';
import { saveOfficePart } from '../tenants/offices';
import { digestConfigured } from '../handoff/hours/leads-index';
import { DEFAULT_RETENTION_MS } from '../conversations/transcript';
import { describeHours, officeFields } from '../tenants/office-summary';
import { usageOf } from './catalogue';
import { UsageError, restValue, splitHead } from './grammar';

const USAGE = usageOf('chatbot');
const EXAMPLE = '/chatbot hours Mon-Fri 09:00-17:00';

/** What the admin typed, as the office record keeps it; a UsageError naming the field and the fix. */
function hoursOf(text: string): OfficeRecord['hours'] {
  const word = text.toLowerCase();
  if (word === 'always') return 'always';
  if (word === 'default') return undefined;
  const windows = parseHours(text);
  if (typeof windows === 'string')
    throw new UsageError(
      `Office hours: ${windows}. For example ${EXAMPLE}; "/chatbot hours always" keeps the office open around the clock.`,
      USAGE,
    );
  return windows;
}

/** `/chatbot hours leads <hour>|default`: validated as LEADS_DIGEST_HOUR is. */
function leadsHourOf(text: string): number | undefined {
  if (text.toLowerCase() === 'default') return undefined;
  const m = /^(\d{1,2})(?::00)?$/.exec(text);
  if (!m || Number(m[1]) > 23)
    throw new UsageError(
      `Leads hour: "${text}" must be an hour from 0 to 23 (office time). For example /chatbot hours leads 7; "/chatbot hours leads default" uses the deployment's LEADS_DIGEST_HOUR.`,
      USAGE,
    );
  return Number(m[1]);
}

async function showHours(ctx: TenantScope, inv: Invocation, text: string): Promise<void> {
  await inv.reply({ text, cards: [{ title: 'Office', fields: await officeFields(ctx) }] }, { ephemeral: true });
}

export async function officeHoursCommand(ctx: TenantScope, inv: Invocation, rest: string): Promise<void> {
  const text = restValue(rest);
  if (text === '')
    return showHours(ctx, inv, `This workspace's office hours. Change them with ${EXAMPLE}, or "always".`);
  const tenant = ctx.canonical;
  const { head, rest: after } = splitHead(text);
  if (head.toLowerCase() === 'leads') {
    const hour = leadsHourOf(restValue(after));
    await saveOfficePart(ctx, tenant, 'digestHour', hour);
    // Its leads waiting for a digest are looked at on the next check, at the new hour.
    await digestConfigured(ctx.store, inv.tenant, ctx.now(), ctx.config.retentionMs ?? DEFAULT_RETENTION_MS);
    ctx.log.info({ tenant, by: inv.actor.id }, "tenant set its day's leads hour");
    const said =
      hour === undefined
        ? "The day's leads: back to the deployment's hour (LEADS_DIGEST_HOUR)."
        : `The day's leads are e-mailed at ${String(hour).padStart(2, '0')}:00 office time from now on.`;
    return showHours(ctx, inv, said);
  }
  const hours = hoursOf(text);
  await saveOfficePart(ctx, tenant, 'hours', hours);
  ctx.log.info({ tenant, by: inv.actor.id }, 'tenant set its office hours');
  const said =
    hours === undefined
      ? "Office hours: back to the deployment's (HANDOFF_HOURS)."
      : hours === 'always'
        ? 'Office hours: always open. Tickets are never marked after hours.'
        : `Office hours set: ${describeHours(hours)}. A ticket opened outside them is marked after hours and its user told when agents are back.`;
  await showHours(ctx, inv, said);
}
