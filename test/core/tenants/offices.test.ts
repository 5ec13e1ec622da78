/**
 * Where a ticket may go: the tenant's own handoff channel, the environment's on its own workspace,
 * or another surface's channel of the same office (both tenants naming the same chatbot); never
 * another tenant's. And which tenants' tickets a viewer sees.
 */
import type { CoreConfig, CoreContext, HandoffTarget } from '../../../src/core/context';
import { CoreMemory } from '../../../src/core/memory';
import type { Place, SurfaceName, SurfacePort } from '../../../src/core/surface';
import { NO_OWN_CHANNEL, routeHandoff, sameOffice, saveOffice, viewTenants } from '../../../src/core/tenants/offices';
import { tenantOf } from '../../../src/core/tenants/tenant';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { silentLog } from '../../support/silent-log';

const SLACK_ENV: HandoffTarget = { surface: 'slack', workspace: '', channel: 'C0ENV' };
const DISCORD_ENV: HandoffTarget = { surface: 'discord', workspace: 'G1', channel: 'D0ENV' };

function contextOf(store: SqliteStore, config: Partial<CoreConfig>): CoreContext {
  const running = new Map<SurfaceName, SurfacePort>(
    (['slack', 'discord'] as const).map((name) => [name, { name } as SurfacePort]),
  );
  return {
    client: undefined as never,
    store,
    config: {
      chatbotId: 'bot-env',
      answerIdleTimeoutMs: 1000,
      handoff: {},
      handoffClaimTimeoutMs: 1000,
      handoffOnNoAnswer: false,
      instanceId: 'test',
      ...config,
    },
    surfaces: { get: (n) => running.get(n), all: () => [...running.values()] },
    log: silentLog,
    now: () => 0,
    memory: new CoreMemory(),
  };
}

const slackUser = (team: string): Place => ({ surface: 'slack', workspace: team, channel: 'C1' });
const discordUser = (guild: string): Place => ({ surface: 'discord', workspace: guild, channel: 'c1' });

describe('offices', () => {
  let store: SqliteStore;
  beforeEach(() => {
    store = new SqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  it('one office: the environment’s channels serve every tenant, across surfaces too', async () => {
    const ctx = contextOf(store, { handoff: { slack: SLACK_ENV } });
    expect(await routeHandoff(ctx, tenantOf(slackUser('T1')))).toEqual(SLACK_ENV);
    // A Discord user's ticket in the Slack channel: the environment's chatbot makes one office.
    expect(await routeHandoff(ctx, tenantOf(discordUser('G7')))).toEqual(SLACK_ENV);
    expect(await sameOffice(ctx, tenantOf(slackUser('T1')), tenantOf(discordUser('G7')))).toBe(true);
  });

  it('many Slack workspaces: the env channel names none, so a workspace without its own is refused; its own is used', async () => {
    const ctx = contextOf(store, { handoff: { slack: SLACK_ENV }, manyTenants: ['slack'] });
    expect(await routeHandoff(ctx, tenantOf(slackUser('T1')))).toEqual({ refusal: NO_OWN_CHANNEL });
    await saveOffice(ctx, tenantFor('slack', 'T1'), { handoffChannel: 'C0OWN' });
    expect(await routeHandoff(ctx, tenantOf(slackUser('T1')))).toEqual({
      surface: 'slack',
      workspace: 'T1',
      channel: 'C0OWN',
    });
    // Another workspace's channel is never borrowed.
    expect(await routeHandoff(ctx, tenantOf(slackUser('T2')))).toEqual({ refusal: NO_OWN_CHANNEL });
  });

  it('a Discord channel of one server never takes another server’s ticket', async () => {
    const ctx = contextOf(store, { handoff: { discord: DISCORD_ENV } });
    expect(await routeHandoff(ctx, tenantOf(discordUser('G1')))).toEqual(DISCORD_ENV);
    expect(await routeHandoff(ctx, tenantOf(discordUser('G2')))).toEqual({ refusal: NO_OWN_CHANNEL });
    // A direct message with the bot is no server's: the deployment's own channel takes it.
    expect(await routeHandoff(ctx, tenantOf(discordUser('@me')))).toEqual(DISCORD_ENV);
  });

  it('across surfaces with many tenants: only when both name the same chatbot', async () => {
    const ctx = contextOf(store, { handoff: { discord: DISCORD_ENV }, manyTenants: ['slack'] });
    const slack = tenantFor('slack', 'T1');
    const guild = tenantFor('discord', 'G1');
    // Unconnected: the environment's chatbot links no tenants where many install the app.
    expect(await sameOffice(ctx, slack, guild)).toBe(false);
    expect(await routeHandoff(ctx, tenantOf(slackUser('T1')))).toEqual({ refusal: NO_OWN_CHANNEL });
    await saveOffice(ctx, slack, { chatbotId: 'bot-a' });
    await saveOffice(ctx, guild, { chatbotId: 'bot-b' });
    expect(await sameOffice(ctx, slack, guild)).toBe(false);
    await saveOffice(ctx, guild, { chatbotId: 'bot-a' });
    expect(await sameOffice(ctx, slack, guild)).toBe(true);
    expect(await routeHandoff(ctx, tenantOf(slackUser('T1')))).toEqual(DISCORD_ENV);
  });

  it('a viewer sees its own tenant’s tickets, and the unnamed env channel’s where that channel is its workspace’s', () => {
    const one = contextOf(store, { handoff: { slack: SLACK_ENV } });
    const t1 = tenantFor('slack', 'T1');
    expect(viewTenants(one, t1).map(tenantPrefix)).toEqual(['t:slack:T1:', 't:slack::']);
    const many = contextOf(store, { handoff: { slack: SLACK_ENV }, manyTenants: ['slack'] });
    expect(viewTenants(many, t1).map(tenantPrefix)).toEqual(['t:slack:T1:']);
  });
});
