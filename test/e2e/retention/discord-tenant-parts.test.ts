/**
 * Every record of a Discord tenant lives in its part of the store. One bot in two servers (no
 * DISCORD_GUILD_ID) and two users in DMs with it, on Redis. Each server: a question in a thread
 * (answered, rated, handed to a person), its admin's settings form left open; each DM user: questions
 * in its DM, a "New conversation", and one hands off, gets the ticket closed and opens the survey.
 * Then every key of the database is read: each record is in its tenant's part (`t:discord:<guild>:`,
 * `t:discord:@me:<DM channel>:`), no key names another tenant, none is in the part every DM once
 * shared, and what is outside the parts is one of the global families listed with their reasons in
 * src/state/global-keys.ts. A server that removes the bot then takes its part, and the others' parts
 * are as they were.
 */
import Redis from 'ioredis';
import type { FakeChannel, FakeMember, FakeMessage } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { isGlobalKey } from '../../../src/state/global-keys';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import {
  ask,
  botMessagesIn,
  responseText,
  startDiscordE2E,
  waitForAnswer,
  type DiscordE2E,
} from '../../support/discord-e2e';
import { botSays } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

/** This suite's own database (no other suite uses 10): it starts empty, so every key is the scenario's. */
const REDIS_URL = 'redis://127.0.0.1:6379/10';
const MANAGE_GUILD = 1n << 5n;

/** Every value key of the database, with the store's `bridge:kv:` taken off; other structures apart. */
async function everyKey(redis: Redis): Promise<Array<{ structure: string; key: string }>> {
  const out: Array<{ structure: string; key: string }> = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    for (const raw of batch) {
      const [, structure = '', ...rest] = raw.split(':');
      out.push({ structure, key: rest.join(':') });
    }
    cursor = next;
  } while (cursor !== '0');
  return out;
}

const partOf = (workspace: string): string => tenantPrefix(tenantFor('discord', workspace));

describe('Redis: every record of a Discord server and of a DM user is in its own part of the store', () => {
  const redis = new Redis(REDIS_URL);
  const other: { id?: string; general?: FakeChannel; admin?: FakeMember } = {};
  const e = useStarted(async (): Promise<DiscordE2E> => {
    await redis.flushdb();
    return startDiscordE2E({
      omitEnv: ['DISCORD_GUILD_ID'],
      env: { STATE_URL: REDIS_URL },
      prepare: (fake) => {
        const guild = fake.addGuild({ name: 'Second office', inReady: true });
        other.id = guild.id;
        other.general = guild.general;
        other.admin = fake.addMember('b-owner');
        other.admin.permissions = String(BigInt('2248473465835073') | MANAGE_GUILD);
      },
    });
  });
  afterAll(async () => {
    await redis.flushdb();
    await redis.quit();
  });

  const wait = <T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string) =>
    waitFor(fn, what, 20_000, e.fake.changes);

  /** A question in a server's channel: its thread, answered, rated 👍. */
  async function askInServer(question: string, member: FakeMember, channel: FakeChannel): Promise<string> {
    const { threadId } = await ask(e, question, member, channel.id);
    const { messages } = await waitForAnswer(e, threadId, question);
    const last = messages[messages.length - 1]!;
    const up = await wait(() => e.fake.buttons(last).find((b) => JSON.stringify(b).includes('👍')), 'the 👍');
    e.fake.clickButton({ message: last, customId: up.custom_id!, member });
    await e.app.bridge.conversations.idle();
    return threadId;
  }

  /** A question in a DM; its last answer message once it carries its buttons. */
  async function askInDm(member: FakeMember, dm: FakeChannel, question: string): Promise<FakeMessage> {
    e.fake.directMessage({ member, content: question });
    const { messages } = await waitForAnswer(e, dm.id, question);
    const last = messages[messages.length - 1]!;
    await wait(() => e.fake.buttons(last).some((b) => b.label === 'Talk to a human') && last, 'its buttons');
    await e.app.bridge.conversations.idle();
    return last;
  }

  test('two servers and two DM users use the bridge; each one’s records are under its own prefix', async () => {
    const servers = [e.fake.guildId, other.id!];
    // Each server: a question rated, handed off (A's), and its admin's settings form open (A's).
    const threadA = await askInServer('Homes in Austin for the first office?', e.user, e.general);
    await askInServer('Homes in Boston for the second office?', other.admin!, other.general!);
    e.fake.slashCommand({
      name: 'handoff',
      channelId: threadA,
      member: e.user,
      options: [{ name: 'reason', type: 3, value: 'call me, A' }],
    });
    await wait(() => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes('call me, A')), 'A’s ticket');
    const edit = e.fake.slashCommand({ name: 'chatbot', channelId: e.general.id, member: e.admin, subcommand: 'edit' });
    await wait(() => e.fake.responsesOf(edit).find((m) => e.fake.buttons(m).length > 0), 'A’s settings panel');

    // Two DM users: each its conversation; one starts over, the other hands off and opens the survey.
    const grace = e.fake.addMember('grace');
    const dms = [e.fake.openDm(e.user), e.fake.openDm(grace)];
    const first = await askInDm(e.user, dms[0]!, 'Any lofts in Denver, from my DM?');
    const over = e.fake.clickButtonLabelled(first, 'New conversation', e.user);
    await wait(() => /New conversation/.test(responseText(e, over)), 'the new conversation');
    await askInDm(e.user, dms[0]!, 'And condos in Miami, from my DM?');
    const theirs = await askInDm(grace, dms[1]!, 'Any ranches in Texas, from my DM?');
    e.fake.clickButtonLabelled(theirs, 'Talk to a human', grace);
    const ticket = await wait(
      () =>
        e.fake
          .channelMessages(e.handoff.id)
          .find((m) => e.fake.buttons(m).some((b) => b.label === 'Claim') && m.content.includes('grace')),
      'grace’s ticket',
    );
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    await botSays(e, dms[1]!.id, 'agent-smith', 'grace told who joined');
    e.fake.clickButtonLabelled(ticket, 'Close', e.agent);
    const prompt = await wait(
      () => botMessagesIn(e.fake, dms[1]!.id).find((m) => e.fake.buttons(m).some((b) => b.label === 'Rate the help')),
      'the survey prompt',
    );
    const opened = e.fake.clickButtonLabelled(prompt, 'Rate the help', grace);
    await wait(() => e.fake.modalOf(opened), 'the survey');
    await e.app.bridge.conversations.idle();

    const tenants = [...servers, ...dms.map((d) => `@me:${d.id}`)];
    const ids = [...servers, ...dms.map((d) => d.id)];
    const keys = await everyKey(redis);
    const values = keys.filter((k) => k.structure === 'kv').map((k) => k.key);
    const expected: Record<string, string[]> = {
      [servers[0]!]: ['conv:', 'discord:thread:', 'discord:form:'],
      [servers[1]!]: ['conv:', 'discord:thread:'],
      [tenants[2]!]: ['conv:', 'discord:dm:'],
      [tenants[3]!]: ['conv:', 'discord:dm:', 'discord:form:'],
    };
    for (const [n, tenant] of tenants.entries()) {
      const own = values.filter((k) => k.startsWith(partOf(tenant)));
      for (const family of expected[tenant]!)
        expect({ tenant, family, found: own.some((k) => k.startsWith(`${partOf(tenant)}${family}`)) }).toEqual({
          tenant,
          family,
          found: true,
        });
      // No key of a tenant names another one.
      const others = ids.filter((_, i) => i !== n);
      expect(own.filter((k) => others.some((id) => k.slice(partOf(tenant).length).includes(id)))).toEqual([]);
    }
    // No part every DM shares, and no part of a tenant that did not use the bridge.
    expect(values.filter((k) => k.startsWith(partOf('@me')))).toEqual([]);
    expect(values.filter((k) => k.startsWith('t:') && !tenants.some((t) => k.startsWith(partOf(t))))).toEqual([]);
    // Outside the parts: only the listed global families.
    expect(values.filter((k) => !k.startsWith('t:') && !isGlobalKey(k))).toEqual([]);
    // Queues live in their tenants' parts.
    for (const k of keys.filter((x) => x.structure === 'q'))
      expect(tenants.some((t) => k.key.startsWith(partOf(t)))).toBe(true);

    // The second server removes the bot: its part goes; every other part is exactly as it was.
    const kept = values.filter((k) => !k.startsWith(partOf(servers[1]!)) && k.startsWith('t:')).sort();
    // What the leave lists of the store: every ticket is not read to find B's (its own index is).
    const listed: string[] = [];
    const store = e.app.store;
    const keysOf = store.keys.bind(store);
    store.keys = (prefix: string) => {
      listed.push(prefix);
      return keysOf(prefix);
    };
    const ticketsBefore = values.filter((k) => k.startsWith('ticket:')).sort();
    e.fake.leaveGuild(servers[1]!);
    await wait(async () => ((await keysOf(partOf(servers[1]!))).length === 0 ? true : undefined), 'B gone');
    store.keys = keysOf;
    expect(listed).not.toContain('ticket:');
    expect(listed.filter((p) => p.startsWith('t:') && !p.startsWith(partOf(servers[1]!)))).toEqual([]);
    const after = (await everyKey(redis)).filter((k) => k.structure === 'kv').map((k) => k.key);
    expect(after.filter((k) => k.includes(servers[1]!))).toEqual([]);
    expect(after.filter((k) => k.startsWith('t:')).sort()).toEqual(expect.arrayContaining(kept));
    // The other tenants' tickets are all there.
    expect(after.filter((k) => k.startsWith('ticket:')).sort()).toEqual(ticketsBefore);
  }, 180_000);
});
