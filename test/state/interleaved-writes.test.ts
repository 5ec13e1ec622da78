/**
 * Writes that cannot undo each other. Two instances share one store (two store handles on one SQLite
 * file, and on one Redis database); one of them is paused right after it read a record (`afterRead`)
 * while the other changes it: a token refresh against an uninstall and a re-install, the daily touch
 * of an installation and of a connection against an uninstall and a connect, a read under the
 * previous key against a disconnect, and two office changes at once. The newest state wins every time,
 * and an uninstalled workspace never comes back. One refresh path: Bolt's InstallProvider, which
 * would refresh a token within 2 hours of its expiry, is never given a refresh token.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTPReceiver } from '@slack/bolt';
import { FakeSlack } from '../../fakes/fake-slack';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from '../../fakes/fake-slack-oauth';
import { type Connection, TenantConnections } from '../../src/core/tenants/connections';
import { saveOfficePart, storedOffices } from '../../src/core/tenants/offices';
import { RedisStore } from '../../src/state/redis-store';
import { SecretBox } from '../../src/state/secret-box';
import { SqliteStore } from '../../src/state/sqlite-store';
import type { StateStore } from '../../src/state/store';
import { tenantFor } from '../../src/state/tenant-store';
import { type AnyInstallation, SlackInstallations } from '../../src/surfaces/slack/oauth/installations';
import { WorkspaceTokens } from '../../src/surfaces/slack/oauth/tokens';
import { dropRedisPrefix } from '../support/redis-prefix';
import { silentLog } from '../support/silent-log';

const REDIS = 'redis://127.0.0.1:6379/9';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A store handle that, once, right after it read a key `match` accepts, lets `action` run (the other
 * instance's change) before the reader goes on with what it read.
 */
function afterRead(store: StateStore): {
  store: StateStore;
  once(match: (key: string) => boolean, action: () => Promise<void>, nth?: number): void;
} {
  const hooks: Array<{ match: (key: string) => boolean; action: () => Promise<void>; left: number }> = [];
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'get') {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return async (key: string) => {
        const value = await target.get(key);
        const hook = hooks.find((h) => h.match(key));
        if (hook && --hook.left === 0) {
          hooks.splice(hooks.indexOf(hook), 1);
          await hook.action();
        }
        return value;
      };
    },
  });
  return { store: wrapped, once: (match, action, nth = 1) => hooks.push({ match, action, left: nth }) };
}

let n = 0;
function installation(team: string, bot: Partial<NonNullable<AnyInstallation['bot']>> = {}): AnyInstallation {
  return {
    team: { id: team, name: `Team ${team}` },
    enterprise: undefined,
    user: { id: 'U0OWNER', token: undefined, scopes: undefined },
    bot: { token: `xoxb-${team}-${++n}`, userId: 'UBOT', scopes: ['chat:write'], id: 'BBOT', ...bot },
    isEnterpriseInstall: false,
    authVersion: 'v2',
  } as AnyInstallation;
}

const connection = (chatbotId: string): Connection => ({
  chatbotId,
  secretKey: `sk_${chatbotId}-secret`,
  sessionKey: `ssk_${chatbotId}-session`,
  connectedBy: 'U1',
  connectedAt: 1,
});

function runInterleavings(open: () => Promise<StateStore>): void {
  let a: StateStore;
  let b: StateStore;
  let fake: FakeSlack;
  const now = { t: 1_800_000_000_000 };
  const clock = () => now.t;
  const k1 = randomBytes(32);

  beforeAll(async () => {
    a = await open();
    b = await open();
    fake = await new FakeSlack().start();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await fake.close();
  });

  const tokensOn = (store: StateStore, instanceId: string, box = new SecretBox(k1)) =>
    new WorkspaceTokens({
      installations: new SlackInstallations(store, box, clock),
      store,
      clientId: FAKE_CLIENT_ID,
      clientSecret: FAKE_CLIENT_SECRET,
      apiUrl: fake.apiUrl,
      instanceId,
      now: clock,
      log: silentLog,
    });

  /** A workspace installed with a rotating token that expires in `hours` (a grant the fake honours). */
  async function rotating(hours: number): Promise<{ team: string; inst: AnyInstallation }> {
    const team = `T${randomBytes(4).toString('hex').toUpperCase()}`;
    const code = `code-${team}`;
    fake.workspaces.grant(code, { team, teamName: team, user: 'U0OWNER', expiresIn: hours * 3600 });
    const granted = (await (
      await fetch(`${fake.apiUrl}oauth.v2.access`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: FAKE_CLIENT_ID, client_secret: FAKE_CLIENT_SECRET, code }),
      })
    ).json()) as { access_token: string; refresh_token: string; expires_in: number };
    const inst = installation(team, {
      token: granted.access_token,
      refreshToken: granted.refresh_token,
      expiresAt: Math.floor(now.t / 1000) + granted.expires_in,
    });
    await new SlackInstallations(b, new SecretBox(k1), clock).save(inst);
    return { team, inst };
  }

  const isInstallation = (team: string) => (key: string) => key === `slack:installation:team:${team}`;

  test('a refresh that read the installation, then an uninstall: the workspace stays uninstalled', async () => {
    const { team } = await rotating(2);
    const paused = afterRead(a);
    // The refresh's own read (the second, inside its lease): the uninstall lands during the exchange.
    paused.once(
      isInstallation(team),
      async () => {
        await new SlackInstallations(b, new SecretBox(k1), clock).remove({ teamId: team });
      },
      2,
    );
    await expect(tokensOn(paused.store, 'one').botToken(team)).rejects.toThrow(/no installation/);
    expect(await b.get(`slack:installation:team:${team}`)).toBeUndefined();
    await expect(tokensOn(b, 'two').botToken(team)).rejects.toThrow(/no installation/);
  });

  test('a refresh that read the installation, then a re-install: the re-install’s token wins', async () => {
    const { team } = await rotating(2);
    const paused = afterRead(a);
    const reinstalled = installation(team, { token: `xoxb-reinstalled-${team}` });
    paused.once(
      isInstallation(team),
      async () => {
        await new SlackInstallations(b, new SecretBox(k1), clock).save(reinstalled);
      },
      2,
    );
    expect(await tokensOn(paused.store, 'one').botToken(team)).toBe(`xoxb-reinstalled-${team}`);
    expect(await tokensOn(b, 'two').botToken(team)).toBe(`xoxb-reinstalled-${team}`);
    expect(await tokensOn(a, 'three').botToken(team)).toBe(`xoxb-reinstalled-${team}`);
  });

  test('the daily touch of an installation read before an uninstall writes nothing back', async () => {
    const team = `T${randomBytes(4).toString('hex').toUpperCase()}`;
    await new SlackInstallations(b, new SecretBox(k1), clock).save(installation(team));
    now.t += 2 * DAY_MS;
    const paused = afterRead(a);
    paused.once(isInstallation(team), async () => {
      await new SlackInstallations(b, new SecretBox(k1), clock).remove({ teamId: team });
    });
    await new SlackInstallations(paused.store, new SecretBox(k1), clock).load({ teamId: team });
    expect(await b.get(`slack:installation:team:${team}`)).toBeUndefined();
    expect(await new SlackInstallations(b, new SecretBox(k1), clock).load({ teamId: team })).toBeUndefined();
  });

  test('the daily touch of a connection read before a connect: the connect wins', async () => {
    const t = tenantFor('slack', `T${randomBytes(4).toString('hex').toUpperCase()}`);
    await new TenantConnections(b, new SecretBox(k1), clock).put(t, connection('bot-first'));
    now.t += 2 * DAY_MS;
    const paused = afterRead(a);
    paused.once(
      (key) => key.endsWith(`${t.id}:connection`) || key.endsWith(`connection:slack:${t.id}`),
      async () => {
        await new TenantConnections(b, new SecretBox(k1), clock).put(t, connection('bot-second'));
      },
    );
    await new TenantConnections(paused.store, new SecretBox(k1), clock).version(t);
    expect((await new TenantConnections(b, new SecretBox(k1), clock).get(t))?.connection.chatbotId).toBe('bot-second');
  });

  test('a connection read under the previous key, then a disconnect: it stays disconnected', async () => {
    const t = tenantFor('discord', String(Date.now()) + String(++n));
    await new TenantConnections(b, new SecretBox(k1), clock).put(t, connection('bot-old-key'));
    const paused = afterRead(a);
    paused.once(
      (key) => key.endsWith(`${t.id}:connection`) || key.endsWith(`connection:discord:${t.id}`),
      async () => {
        await new TenantConnections(b, new SecretBox(k1), clock).remove(t);
      },
    );
    const rotated = new TenantConnections(paused.store, new SecretBox(randomBytes(32), k1), clock);
    expect((await rotated.get(t))?.connection.chatbotId).toBe('bot-old-key');
    expect(await new TenantConnections(b, new SecretBox(k1), clock).get(t)).toBeUndefined();
    expect(await new TenantConnections(b, new SecretBox(k1), clock).version(t)).toBeUndefined();
  });

  test('two office changes at once on two instances: both are kept', async () => {
    const t = tenantFor('slack', `T${randomBytes(4).toString('hex').toUpperCase()}`);
    const paused = afterRead(a);
    paused.once(
      (key) => key.endsWith(`${t.id}:office`),
      async () => {
        await saveOfficePart({ store: b }, t, 'digestHour', 7);
      },
    );
    await saveOfficePart({ store: paused.store }, t, 'hours', 'always');
    expect(await storedOffices({ store: b }).of(t)).toEqual({ hours: 'always', digestHour: 7 });
  });

  test('one refresh path: Bolt’s InstallProvider never refreshes a token (it is given no refresh token)', async () => {
    // Bolt reads the wall clock: a token it would refresh is one within 2 hours of expiry now.
    now.t = Date.now();
    const { team, inst } = await rotating(1);
    // Another instance holds the bridge's refresh of this workspace: this one goes on with the token it read.
    await b.acquireLease(`slack:token-refresh:slack:installation:team:${team}`, 'another-instance', 60_000);
    const tokens = tokensOn(a, 'one');
    const installations = new SlackInstallations(a, new SecretBox(k1), clock);
    // Bolt's own InstallProvider, as the bridge's receiver holds it (bolt-app.ts).
    const provider = new HTTPReceiver({
      signingSecret: 'interleaved-signing-secret',
      clientId: FAKE_CLIENT_ID,
      clientSecret: FAKE_CLIENT_SECRET,
      stateSecret: 'interleaved-state-secret',
      installationStore: installations.asInstallationStore((q) => tokens.installation(q)),
      installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl } },
    }).installer;
    if (!provider) throw new Error('the receiver has no InstallProvider');
    const refreshesBefore = fake.workspaces.refreshes;
    const auth = await provider.authorize({ teamId: team, enterpriseId: undefined, isEnterpriseInstall: false });
    expect(auth.botToken).toBe(inst.bot?.token);
    expect(fake.workspaces.refreshes).toBe(refreshesBefore);
    expect(await installations.loadKey(`slack:installation:team:${team}`)).toEqual(inst);
  });
}

describe('interleaved writes on SQLite (two handles on one file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'interleaved-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  runInterleavings(async () => new SqliteStore(join(dir, 'state.db')));
});

describe('interleaved writes on Redis (two handles on one database)', () => {
  const prefix = `test:interleaved:${randomBytes(4).toString('hex')}:`;
  afterAll(() => dropRedisPrefix(REDIS, prefix));
  runInterleavings(async () => new RedisStore(REDIS, { keyPrefix: prefix }));
});
