/**
 * Every record of a tenant lives in its part of the store. Two workspaces installed by OAuth on one
 * deployment, on Redis, each: connects its own chatbot with its handoff channel, asks, hands off
 * (the ticket in its own channel), opens an assistant thread (its context kept), is
 * looked at by the agent (app_context_changed, the Messages tab), sets its office hours. Then every
 * key of the database is read: each record that names a workspace is in that workspace's part
 * (`t:slack:<team>:`), and what is outside the parts is one of the global families listed with their
 * reasons in src/state/global-keys.ts. A workspace that leaves then takes its part, and the other's
 * part is as it was.
 */
import Redis from 'ioredis';
import { waitFor, type SlackDriver } from '../../../fakes/slack-requests';
import { GLOBAL_FAMILIES, isGlobalKey } from '../../../src/state/global-keys';
import { makeChatbots, serviceKeys } from '../../support/connect-e2e';
import { useStarted } from '../../support/server-setup';
import { ADMIN } from '../../support/slack-e2e';
import { pressTalkToHuman } from '../../support/slack-flows';
import { install, type OAuthE2E, startOAuthE2E } from '../../support/slack-oauth';

/** This suite's own database (no other suite uses 4): it starts empty, so every key is the scenario's. */
const REDIS_URL = 'redis://127.0.0.1:6379/4';
const TEAMS = ['T0PARTX', 'T0PARTY'] as const;
let seq = 0;
const tsNow = (): string => `${Math.floor(Date.now() / 1000)}.${String(300000 + ++seq)}`;

/** Every key of the database, by structure: `kv` value keys with the store's prefix taken off. */
async function everyKey(redis: Redis): Promise<Array<{ structure: string; key: string }>> {
  const out: Array<{ structure: string; key: string }> = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    for (const raw of batch) {
      // bridge:<structure>:<key...> (redis-keys.ts).
      const [, structure = '', ...rest] = raw.split(':');
      out.push({ structure, key: rest.join(':') });
    }
    cursor = next;
  } while (cursor !== '0');
  return out;
}

const partOf = (team: string): string => `t:slack:${team}:`;

describe('Redis: every record of a workspace is in its part of the store', () => {
  const redis = new Redis(REDIS_URL);
  const e = useStarted(async (): Promise<OAuthE2E> => {
    await redis.flushdb();
    return startOAuthE2E({ env: { STATE_URL: REDIS_URL } });
  });
  afterAll(async () => {
    await redis.flushdb();
    await redis.quit();
  });

  /** One workspace uses the features that keep records. */
  async function useEverything(team: string, driver: SlackDriver, botId: string, n: number): Promise<void> {
    const [gen, desk, pane] = [`C0GEN${n}`, `C0DESK${n}`, `D0PANE${n}`];
    // Its own chatbot and handoff channel.
    const before = e.fake.views.length;
    await driver.command('/chatbot', 'connect', { user: ADMIN, channel: gen });
    const form = await waitFor(() => e.fake.views[before], 'the connect form');
    const res = await driver.submitView(
      form,
      { chatbotId: botId, ...serviceKeys(e), handoffChannel: desk },
      { user: ADMIN },
    );
    expect(JSON.stringify(res.json ?? {})).not.toContain('errors');
    await waitFor(
      async () => (await e.app.store.keys(`${partOf(team)}connection`)).length === 1 || undefined,
      'connected',
    );
    // A question, handed to a person: the ticket in its own channel.
    await pressTalkToHuman(e.fake, driver, 'U0USER1', gen, `Homes in Austin for ${team}?`);
    await waitFor(() => e.fake.channelMessages(desk).find((m) => m.text.includes(team)), `the ticket in ${desk}`);
    // The assistant pane: a thread started (its context kept).
    const thread = tsNow();
    await driver.event({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: 'U0USER1', channel_id: pane, thread_ts: thread, context: { channel_id: gen } },
      event_ts: thread,
    });
    await waitFor(() => e.fake.replies(pane, thread).find((m) => m.user === e.fake.botUserId), 'the greeting');
    // The agent: what the user looks at, and the Messages tab opened.
    await driver.event({
      type: 'app_context_changed',
      user: 'U0USER1',
      channel: pane,
      context: { entities: [{ type: 'slack#/types/channel_id', value: gen, team_id: team }] },
    });
    await driver.event({ type: 'app_home_opened', user: 'U0USER1', channel: pane, tab: 'messages', event_ts: tsNow() });
    // Its own office hours.
    await driver.command('/chatbot', 'hours always', { user: ADMIN, channel: gen });
    await waitFor(
      async () => ((await e.app.store.keys(`${partOf(team)}office`)).length > 0 ? true : undefined),
      'hours',
    );
  }

  test('two workspaces use the bridge; each one’s records are under its own prefix, the rest are listed global families', async () => {
    e.fake.workspaceAdmins.add(ADMIN);
    const drivers: SlackDriver[] = [];
    const bots = await makeChatbots(e, 'Chatbot X', 'Chatbot Y');
    for (const [n, team] of TEAMS.entries()) {
      e.fake.workspaces.addChannels(team, `C0GEN${n}`, `C0DESK${n}`);
      e.fake.channelMembers[`C0DESK${n}`] = ['U0AGENT'];
      drivers.push((await install(e, { team, teamName: `Office ${team}`, user: ADMIN })).driver);
    }
    for (const [n, team] of TEAMS.entries()) await useEverything(team, drivers[n]!, bots[n]!.id, n);
    for (const team of TEAMS) {
      await waitFor(
        async () => ((await e.app.store.keys(`${partOf(team)}slack:agent:context:`)).length > 0 ? true : undefined),
        `${team}'s agent context`,
      );
    }

    const keys = await everyKey(redis);
    const values = keys.filter((k) => k.structure === 'kv').map((k) => k.key);
    // Each workspace's part holds its surface records and core's, and names no other workspace.
    for (const [n, team] of TEAMS.entries()) {
      const own = values.filter((k) => k.startsWith(partOf(team)));
      for (const family of [
        'connection',
        'office',
        'conv:',
        'slack:assistant:thread:',
        'slack:agent:context:',
        'slack:event:',
        'cache:',
      ])
        expect({ team, family, found: own.some((k) => k.startsWith(`${partOf(team)}${family}`)) }).toEqual({
          team,
          family,
          found: true,
        });
      const other = TEAMS[1 - n] as string;
      expect(own.filter((k) => k.includes(other))).toEqual([]);
    }
    // Outside the parts: only the listed global families.
    const outside = values.filter((k) => !k.startsWith('t:'));
    expect(outside.filter((k) => !isGlobalKey(k))).toEqual([]);
    expect(values.filter((k) => k.startsWith('t:') && !TEAMS.some((t) => k.startsWith(partOf(t))))).toEqual([]);
    // Other structures: queues in the parts; leases, rate logs and outboxes are listed as global.
    const structures = new Set(GLOBAL_FAMILIES.filter((f) => f.structure !== 'kv').map((f) => f.structure));
    const named = { lease: 'lease', rate: 'rate', ob: 'outbox', due: 'due' } as Record<string, string>;
    for (const k of keys.filter((x) => x.structure !== 'kv')) {
      if (k.structure === 'q') expect(TEAMS.some((t) => k.key.startsWith(partOf(t)))).toBe(true);
      else expect({ key: k, listed: structures.has(named[k.structure] as never) }).toEqual({ key: k, listed: true });
    }

    // X leaves: its part goes by its prefix; Y's part is exactly as it was.
    const yBefore = values.filter((k) => k.startsWith(partOf('T0PARTY'))).sort();
    e.fake.workspaces.revoke('T0PARTX');
    expect((await drivers[0]!.event({ type: 'app_uninstalled' })).status).toBe(200);
    await waitFor(async () => ((await e.app.store.keys(partOf('T0PARTX'))).length === 0 ? true : undefined), 'X gone');
    const after = (await everyKey(redis)).filter((k) => k.structure === 'kv').map((k) => k.key);
    expect(after.filter((k) => k.includes('T0PARTX'))).toEqual([]);
    expect(after.filter((k) => k.startsWith(partOf('T0PARTY'))).sort()).toEqual(
      expect.arrayContaining(yBefore.filter((k) => !k.includes(':slack:event:') && !k.includes(':seen:'))),
    );
  });
});
