/**
 * Mail and steps follow the ticket's own office, captured when it opens (Ticket.office). A tenant with
 * its own chatbot opens a ticket, then disconnects (or leaves): the ticket's e-mail goes to no one,
 * never to the operator's HANDOFF_EMAIL nor to the office that serves the tenant now, and its
 * response target escalates no one. A ticket of the operator's office is mailed as before.
 */
import { randomBytes } from 'node:crypto';
import type { CoreConfig, CoreContext } from '../../../../src/core/context';
import { ticketMailId, mailOutboxOf, oweTicketMail } from '../../../../src/core/handoff/hours/ticket-mails';
import { OfficeBook } from '../../../../src/core/handoff/hours/ticket-office';
import { type Ticket, ticketSchema } from '../../../../src/core/handoff/model';
import { CoreMemory } from '../../../../src/core/memory';
import { appliedSettingsKey } from '../../../../src/core/settings/applied';
import { TenantConnections } from '../../../../src/core/tenants/connections';
import { ChatbotDirectory } from '../../../../src/core/tenants/directory';
import { ChatbotClient } from '../../../../src/service/client';
import { SecretBox } from '../../../../src/state/secret-box';
import { SqliteStore } from '../../../../src/state/sqlite-store';
import { silentLog } from '../../../support/silent-log';

const OWN = { surface: 'slack', id: 'T0OWN' } as const;
const OPERATOR = { surface: 'slack', id: 'T0OPS' } as const;

function ticketOf(workspace: string, id: string, office: Ticket['office']): Ticket {
  return ticketSchema.parse({
    id,
    convId: `conv-${id}`,
    status: 'open',
    user: { id: 'U1', name: 'Ada', isAdmin: false },
    userPlace: { surface: 'slack', workspace, channel: 'C1', thread: '1.0' },
    reason: 'call me',
    createdAt: Date.parse('2026-03-07T16:00:00Z'),
    afterHours: true,
    office,
  });
}

describe('a ticket’s e-mail follows the office it opened in', () => {
  const store = new SqliteStore(':memory:');
  const client = new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' });
  const config: CoreConfig = {
    chatbotId: 'env-bot',
    answerIdleTimeoutMs: 1000,
    handoff: {},
    handoffClaimTimeoutMs: 60_000,
    handoffOnNoAnswer: false,
    instanceId: 'i1',
    office: { email: 'operator@ops.example', escalate: ['S0OPS'], assign: 'none', offerMs: 60_000, digestHour: 8 },
  };
  const chatbots = new ChatbotDirectory({
    connections: new TenantConnections(store, new SecretBox(randomBytes(32)), () => 1),
    makeClient: () => client,
    fallback: { chatbotId: 'env-bot', client },
  });
  const ctx = {
    store,
    config,
    log: silentLog,
    now: () => Date.parse('2026-03-07T16:00:00Z'),
    memory: new CoreMemory(),
    chatbots,
    client,
    surfaces: { get: () => undefined, all: () => [] },
    mailer: { send: async () => undefined, close: () => undefined },
  } as unknown as CoreContext;
  const owed = (t: Ticket) => mailOutboxOf(ctx).isOwed(ticketMailId(t.id, 'afterhours'));

  beforeAll(async () => {
    await chatbots.connections.put(OWN, {
      chatbotId: 'own-bot',
      secretKey: 'sk_own-secret-key-0001',
      sessionKey: 'ssk_own-session-key-0001',
      connectedBy: 'U1',
      connectedAt: 1,
    });
    await store.set(appliedSettingsKey('own-bot'), { TalkToHumanEmail: 'desk@own.example' });
    await store.set(appliedSettingsKey('env-bot'), { TalkToHumanEmail: 'shared@ops.example' });
  });
  afterAll(() => store.close());

  test('while connected, its own office mails it; once it disconnects, no one does (not HANDOFF_EMAIL)', async () => {
    const connected = ticketOf(OWN.id, 't-own-1', { chatbotId: 'own-bot', kind: 'own' });
    await oweTicketMail(ctx, connected, 'afterhours');
    expect(await owed(connected)).toBe(true);

    await chatbots.connections.remove(OWN);
    chatbots.forget(OWN);
    const after = ticketOf(OWN.id, 't-own-2', { chatbotId: 'own-bot', kind: 'own' });
    const book = await new OfficeBook(ctx).forTicket(after);
    expect(book.gone).toBe(true);
    expect(book.office.ticketEmail).toBeUndefined();
    await oweTicketMail(ctx, after, 'afterhours');
    expect(await owed(after)).toBe(false);
  });

  test('a ticket of the operator’s office is mailed to its address as before', async () => {
    await chatbots.connections.put(OPERATOR, {
      chatbotId: 'env-bot',
      secretKey: 'sk_env-secret-key-0001',
      sessionKey: 'ssk_env-session-key-0001',
      connectedBy: 'U9',
      connectedAt: 1,
    });
    const t = ticketOf(OPERATOR.id, 't-ops', { chatbotId: 'env-bot', kind: 'operator' });
    expect((await new OfficeBook(ctx).forTicket(t)).gone).toBeUndefined();
    await oweTicketMail(ctx, t, 'afterhours');
    expect(await owed(t)).toBe(true);
  });
});
