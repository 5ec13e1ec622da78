/**
 * What a tenant connected (`/chatbot connect`): its own chatbot and handoff channel (and its hours,
 * `/chatbot hours`), and where core
 * reads them. Apart from offices.ts so the context can name `Offices` without importing the rules.
 */
import type { Json } from '../../state/store';
import { scoped, type Tenant, type TenantStore } from '../../state/tenant-store';
import { updateVersioned } from '../../state/versioned';
import type { OfficeWindow } from '../handoff/hours/office-hours';

/**
 * Absent fields use the environment's (CHATBOT_ID, SLACK_HANDOFF_CHANNEL / DISCORD_HANDOFF_CHANNEL,
 * HANDOFF_HOURS, LEADS_DIGEST_HOUR).
 */
export interface OfficeRecord {
  chatbotId?: string;
  handoffChannel?: string;
  /** `/chatbot hours`: the tenant's own opening windows, or 'always' (open around the clock). */
  hours?: OfficeWindow[] | 'always';
  /** `/chatbot hours leads`: the local hour its day's leads are e-mailed (LEADS_DIGEST_HOUR otherwise). */
  digestHour?: number;
  /** `/handoff settings`: its own handoff rules (handoff/rules.ts), each over the deployment's. */
  handoff?: OfficeHandoffRules;
}

/**
 * An office's own handoff rules (`/handoff settings`); each absent one is the deployment's
 * (HANDOFF_ASSIGN, HANDOFF_OFFER_S, HANDOFF_FIRST_REPLY_S, HANDOFF_CLAIM_TIMEOUT_S, HANDOFF_REMIND_S,
 * HANDOFF_ON_NO_ANSWER, LINK_HOSTS). `firstReplyMs` 0: no response target.
 */
// A type, not an interface: the store's Json takes it as it is.
export type OfficeHandoffRules = {
  assign?: 'round-robin' | 'none';
  offerMs?: number;
  firstReplyMs?: number;
  claimTimeoutMs?: number;
  remindMs?: number;
  onNoAnswer?: boolean;
  linkHosts?: string[];
};

export interface Offices {
  of(t: Tenant): Promise<OfficeRecord | undefined>;
}

/** Where a tenant's office record is kept in its part of the store (`t:<kind>:<id>:office`). */
export const OFFICE_KEY = scoped('office');

/**
 * Changes a tenant's office record by compare-and-set (state/versioned.ts): `change` gets the record
 * as it is now (undefined when there is none) and returns the next one; a write that lost a race to
 * another instance reads again and asks again, so two admins changing two parts at once both land.
 */
export async function updateOfficeRecord(
  view: TenantStore,
  change: (current: Json | undefined) => { [key: string]: Json },
): Promise<void> {
  await updateVersioned(view, OFFICE_KEY, change);
}
