/**
 * The office a ticket's background steps read (the sweep's reminders, time-outs, targets and offers,
 * its e-mails, the day's leads): the office of its asker's tenant (the conversation's place), with
 * that tenant's chatbot, settings and hours, never the deployment's by default. One book per pass:
 * a pass over many tickets of one tenant reads its office once.
 */
import type { CoreContext } from '../../context';
import type { Place } from '../../surface';
import type { Ticket } from '../model';
import { chatbotFor, withChatbot } from '../../tenants/scope';
import { tenantKey, tenantOf } from '../../tenants/tenant';
import { type Office, readOffice } from './office';

export interface TicketOffice {
  /** The context narrowed to the tenant (the deployment's own when no chatbot serves it). */
  ctx: CoreContext;
  office: Office;
  /** The chatbot serving the tenant; undefined when none does (not connected, no default). */
  chatbotId?: string;
  /** The ticket's own office is gone (forTicket): nothing of it is mailed or escalated. */
  gone?: boolean;
}

export class OfficeBook {
  private readonly read = new Map<string, Promise<TicketOffice>>();

  constructor(private readonly root: CoreContext) {}

  /** The office of `place`'s tenant, read on its first ticket of the pass. */
  of(place: Pick<Place, 'surface' | 'workspace'>): Promise<TicketOffice> {
    const tenant = tenantOf(place);
    const key = tenantKey(tenant);
    let found = this.read.get(key);
    if (!found) {
      found = this.load(place);
      this.read.set(key, found);
    }
    return found;
  }

  /**
   * The office of `t`'s tenant, as long as it is still the office the ticket opened in (Ticket.office):
   * a tenant that disconnected, connected another chatbot or left since has none for it, so the
   * ticket is e-mailed to no one and escalates no one (its steps still run, in the tenant's clock).
   */
  async forTicket(t: Pick<Ticket, 'userPlace' | 'office'>): Promise<TicketOffice> {
    const found = await this.of(t.userPlace);
    if (!t.office || (found.chatbotId === t.office.chatbotId && found.ctx.scope?.chatbot === t.office.kind))
      return found;
    const { ticketEmail: _t, ticketEmailFrom: _f, leadsEmail: _l, ...rest } = found.office;
    return { ...found, office: rest, gone: true };
  }

  private async load(place: Pick<Place, 'surface' | 'workspace'>): Promise<TicketOffice> {
    const tenant = tenantOf(place);
    const chatbot = await chatbotFor(this.root, tenant);
    const ctx = chatbot ? withChatbot(this.root, tenant, chatbot) : this.root;
    const office = await readOffice(ctx);
    return chatbot ? { ctx, office, chatbotId: chatbot.chatbotId } : { ctx, office };
  }
}
