/**
 * The office a ticket's background steps read (the sweep's reminders, time-outs, targets and offers,
 * its e-mails, the day's leads): the office of its asker's tenant (the tenant recorded with the
 * conversation's place), with that tenant's chatbot, settings and hours, never the deployment's by
 * default. One book per pass: a pass over many tickets of one tenant reads its office once.
 */
import type { ChatbotKind, CoreContext, OfficeScope } from '../../context';
import type { Place } from '../../surface';
import type { Ticket } from '../model';
import { channelFirst, chatbotFor, chatbotKind, unconnectedScope } from '../../tenants/scope';
import { recordedTenant, tenantKey } from '../../tenants/tenant';
import { talkToHumanMessage } from '../channel';
import { type Office, readOffice } from './office';

export interface TicketOffice {
  /** The tenant's office scope: its chatbot named (none when no chatbot serves it), its handoff channel first. */
  ctx: OfficeScope;
  office: Office;
  /** The chatbot serving the tenant, and whose; undefined when none does (not connected, no default). */
  chatbotId?: string;
  kind?: ChatbotKind;
  /** The ticket's own office is gone (forTicket): nothing of it is mailed or escalated. */
  gone?: boolean;
}

export class OfficeBook {
  private readonly read = new Map<string, Promise<TicketOffice>>();

  constructor(private readonly root: CoreContext) {}

  /** The office of the tenant recorded at `place`, read on its first ticket of the pass. */
  of(place: Pick<Place, 'surface' | 'workspace'>): Promise<TicketOffice> {
    const tenant = recordedTenant(place);
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
    if (!t.office || (found.chatbotId === t.office.chatbotId && found.kind === t.office.kind)) return found;
    const { ticketEmail: _t, ticketEmailFrom: _f, leadsEmail: _l, ...rest } = found.office;
    return { ...found, office: rest, gone: true };
  }

  /**
   * What a ticket opening in `place`'s tenant needs of its office: the office, the words of its
   * chatbot (TalkToHumanResponseMessage), and the office to keep with the ticket (Ticket.office).
   */
  async opening(place: Pick<Place, 'surface' | 'workspace'>) {
    const found = await this.of(place);
    const talkToHuman = await talkToHumanMessage(found.ctx);
    const { chatbotId, kind } = found;
    return { office: found.office, talkToHuman, captured: chatbotId && kind ? { chatbotId, kind } : undefined };
  }

  private async load(place: Pick<Place, 'surface' | 'workspace'>): Promise<TicketOffice> {
    const tenant = recordedTenant(place);
    const base = await unconnectedScope(this.root, tenant);
    const chatbot = await chatbotFor(this.root, tenant);
    if (!chatbot) return { ctx: base, office: await readOffice(base) };
    const kind = chatbotKind(this.root, tenant, chatbot);
    // Named, not callable: a ticket's steps read its office, they never ask its chatbot.
    const named = { kind, chatbotId: chatbot.chatbotId };
    const ctx: OfficeScope = { ...base, config: channelFirst(base.config, tenant, chatbot), chatbot: named };
    return { ctx, office: await readOffice(ctx), chatbotId: chatbot.chatbotId, kind };
  }
}
