/**
 * What a tenant connected (`/chatbot connect`): its own chatbot and handoff channel, and where core
 * reads them. Apart from offices.ts so the context can name `Offices` without importing the rules.
 */
import { scoped, type Tenant } from '../../state/tenant-store';

/** Absent fields use the environment's (CHATBOT_ID, SLACK_HANDOFF_CHANNEL / DISCORD_HANDOFF_CHANNEL). */
export interface OfficeRecord {
  chatbotId?: string;
  handoffChannel?: string;
}

export interface Offices {
  of(t: Tenant): Promise<OfficeRecord | undefined>;
}

/** Where a tenant's office record is kept in its part of the store (`t:<kind>:<id>:office`). */
export const OFFICE_KEY = scoped('office');
