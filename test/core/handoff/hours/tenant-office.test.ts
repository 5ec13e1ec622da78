/**
 * Whose office a background step reads: the office of the ticket's asker's tenant. A tenant with its
 * own chatbot reads its chatbot's TimeZone and TalkToHumanEmail and its own hours (`/chatbot hours`),
 * never the operator's HANDOFF_EMAIL; a tenant on the environment's chatbot (by default, or connected
 * by its keys) has HANDOFF_EMAIL stand in, as before. A sweep pass reads each tenant's office once, however many tickets it has.
 */
import { randomBytes } from 'node:crypto';
import type { CoreConfig, CoreContext } from '../../../../src/core/context';
import { parseHours, type OfficeWindow } from '../../../../src/core/handoff/hours/office-hours';
import { readOffice } from '../../../../src/core/handoff/hours/office';
import { OfficeBook } from '../../../../src/core/handoff/hours/ticket-office';
import { CoreMemory } from '../../../../src/core/memory';
import { appliedSettingsKey } from '../../../../src/core/settings/applied';
import { TenantConnections } from '../../../../src/core/tenants/connections';
import { ChatbotDirectory } from '../../../../src/core/tenants/directory';
import { saveOfficePart } from '../../../../src/core/tenants/offices';
import { scopeWith } from '../../../../src/core/tenants/scope';
import type { RequestTenant } from '../../../../src/core/tenants/tenant';
import { scopeAt } from '../../../support/tenant-scope';
import { ChatbotClient } from '../../../../src/service/client';
import { SecretBox } from '../../../../src/state/secret-box';
import { SqliteStore } from '../../../../src/state/sqlite-store';
import { silentLog } from '../../../support/silent-log';

const OWN = { surface: 'slack', id: 'T0OWN' } as const;
const ENV = { surface: 'slack', id: 'T0ENV' } as const;
const place = (workspace: string) => ({ surface: 'slack' as const, workspace, channel: 'C1' });

function windows(spec: string): OfficeWindow[] {
  const w = parseHours(spec);
  if (typeof w === 'string') throw new Error(w);
  return w;
}

describe('the office of a ticket’s tenant', () => {
  const store = new SqliteStore(':memory:');
  const reads: string[] = [];
  // The store as core sees it, with every read of a key noted (how many times an office is read).
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'get')
        return (key: string) => {
          reads.push(key);
          return target.get(key);
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const client = new ChatbotClient({ baseUrl: 'http://127.0.0.1:9' });
  const config: CoreConfig = {
    chatbotId: 'env-bot',
    answerIdleTimeoutMs: 1000,
    handoff: {},
    handoffClaimTimeoutMs: 60_000,
    handoffOnNoAnswer: false,
    instanceId: 'i1',
    office: {
      hours: windows('Mon-Fri 09:00-18:00'),
      timeZone: 'America/Chicago',
      email: 'operator@ops.example',
      escalate: [],
      assign: 'none',
      offerMs: 60_000,
      digestHour: 8,
    },
  };
  const chatbots = new ChatbotDirectory({
    connections: new TenantConnections(store, new SecretBox(randomBytes(32)), () => 1),
    makeClient: () => client,
    fallback: { chatbotId: 'env-bot', client },
  });
  const root = {
    store: counted,
    config,
    log: silentLog,
    now: () => Date.parse('2026-03-07T16:00:00Z'),
    memory: new CoreMemory(),
    chatbots,
    client,
  } as unknown as CoreContext;

  beforeAll(async () => {
    await chatbots.connections.put(OWN, {
      chatbotId: 'own-bot',
      secretKey: 'sk_own-secret-key-0001',
      sessionKey: 'ssk_own-session-key-0001',
      connectedBy: 'U1',
      connectedAt: 1,
    });
    await store.set(appliedSettingsKey('own-bot'), { TimeZone: 'Asia/Tokyo' });
  });
  afterAll(() => store.close());

  test('a tenant with its own chatbot: its time zone, its hours, and no HANDOFF_EMAIL', async () => {
    const own = await scopeWith(root, OWN as RequestTenant, { chatbotId: 'own-bot', client, connected: true });
    let office = await readOffice(own);
    expect(office.timeZone).toBe('Asia/Tokyo');
    expect(office.ticketEmail).toBeUndefined();
    // Until it sets its own, HANDOFF_HOURS applies (in its own time zone).
    expect(office.hours).toEqual({ windows: windows('Mon-Fri 09:00-18:00'), timeZone: 'Asia/Tokyo' });
    expect(office.hoursFrom).toBe('environment');
    await saveOfficePart(root, OWN, 'hours', windows('Sat 10:00-14:00'));
    office = await readOffice(own);
    expect(office.hours?.windows).toEqual(windows('Sat 10:00-14:00'));
    expect(office.hoursFrom).toBe('tenant');
    await saveOfficePart(root, OWN, 'hours', 'always');
    expect((await readOffice(own)).hours).toBeUndefined();
    await store.set(appliedSettingsKey('own-bot'), { TimeZone: 'Asia/Tokyo', TalkToHumanEmail: 'desk@own.example' });
    expect((await readOffice(own)).ticketEmail).toBe('desk@own.example');
  });

  test('a tenant on the environment’s chatbot: HANDOFF_EMAIL stands in, as for the deployment itself', async () => {
    const onEnv = await scopeWith(root, ENV as RequestTenant, { chatbotId: 'env-bot', client, connected: false });
    const office = await readOffice(onEnv);
    expect(office).toMatchObject({ timeZone: 'America/Chicago', ticketEmail: 'operator@ops.example' });
    expect(office.ticketEmailFrom).toBe('environment');
    expect((await readOffice(await scopeAt(root, place('T0ENV')))).ticketEmail).toBe('operator@ops.example');
    // Another tenant's own hours are not its.
    expect(office.hours?.windows).toEqual(windows('Mon-Fri 09:00-18:00'));
  });

  test('a tenant that connected the environment’s own chatbot is the operator’s office: HANDOFF_EMAIL stands in', async () => {
    // OAuth mode: connecting is how a workspace names its handoff channel, whatever chatbot it names.
    const onEnvConnected = await scopeWith(root, ENV as RequestTenant, {
      chatbotId: 'env-bot',
      client,
      connected: true,
    });
    expect(onEnvConnected.chatbot.kind).toBe('operator');
    const office = await readOffice(onEnvConnected);
    expect(office.ticketEmail).toBe('operator@ops.example');
    expect(office.ticketEmailFrom).toBe('environment');
  });

  test('one pass reads each tenant’s office once, whatever its number of tickets', async () => {
    const book = new OfficeBook(root);
    reads.length = 0;
    const offices = await Promise.all([OWN.id, ENV.id, OWN.id, OWN.id, ENV.id, OWN.id].map((w) => book.of(place(w))));
    expect(offices.map((o) => o.chatbotId)).toEqual(['own-bot', 'env-bot', 'own-bot', 'own-bot', 'env-bot', 'own-bot']);
    expect(offices[0]!.office.timeZone).toBe('Asia/Tokyo');
    expect(offices[1]!.office.timeZone).toBe('America/Chicago');
    expect(reads.filter((k) => k === appliedSettingsKey('own-bot'))).toHaveLength(1);
    expect(reads.filter((k) => k === appliedSettingsKey('env-bot'))).toHaveLength(1);
    // A new pass reads again: a setting applied meanwhile counts from the next pass on.
    await new OfficeBook(root).of(place(OWN.id));
    expect(reads.filter((k) => k === appliedSettingsKey('own-bot'))).toHaveLength(2);
  });
});
