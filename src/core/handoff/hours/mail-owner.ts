/**
 * Whose an owed e-mail is, by its outbox id: a ticket's e-mail (`ticket:<id>:<reason>`) is its asker's
 * tenant's and its handoff channel's; a day's leads (`leads:[<chatbot>:]<date>`) are the office's of
 * that chatbot (none named: the environment's). `/handoff queue` shows a tenant the e-mails not sent
 * yet that are its own only: a subject names a user and a city.
 */
import type { Tenant } from '../../../state/tenant-store';
import type { CoreContext } from '../../context';
import type { Place } from '../../surface';
import { chatbotFor } from '../../tenants/scope';
import { tenantOf } from '../../tenants/tenant';
import type { Ticket } from '../model';

/**
 * The outbox id of an office's digest of `date`: the environment's chatbot keeps the id it always
 * had; an office with its own chatbot has its chatbot's id in it, so two offices never share one.
 */
export function digestId(ctx: CoreContext, chatbotId: string, date: string): string {
  return chatbotId === ctx.config.chatbotId ? `leads:${date}` : `leads:${encodeURIComponent(chatbotId)}:${date}`;
}

const sameAs = (viewers: readonly Tenant[], place: Place): boolean => {
  const t = tenantOf(place);
  return viewers.some((v) => v.surface === t.surface && v.id === t.id);
};

/** Whether the e-mail owed under `mailId` is one of `viewers`' own. */
export async function mailConcerns(
  ctx: CoreContext,
  load: (ticketId: string) => Promise<Ticket | undefined>,
  mailId: string,
  viewers: readonly Tenant[],
): Promise<boolean> {
  const ticketMail = /^ticket:(.+):[a-z]+$/.exec(mailId);
  if (ticketMail) {
    const t = await load(ticketMail[1]!);
    return t !== undefined && (sameAs(viewers, t.userPlace) || (t.root !== undefined && sameAs(viewers, t.root.place)));
  }
  const digest = /^leads:(?:(.+):)?\d{4}-\d{2}-\d{2}$/.exec(mailId);
  if (!digest || viewers.length === 0) return false;
  const chatbotId = digest[1] !== undefined ? decodeURIComponent(digest[1]) : ctx.config.chatbotId;
  return (await chatbotFor(ctx, viewers[0]!))?.chatbotId === chatbotId;
}
