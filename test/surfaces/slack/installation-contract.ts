/**
 * The Slack installation store over a StateStore, run against SQLite and Redis: records shared by
 * instances, keyed by team (and enterprise for org-wide installs), sealed at rest, re-sealed on key
 * rotation, and token rotation done once across instances.
 */
import { randomBytes } from 'node:crypto';
import { FakeSlack } from '../../../fakes/fake-slack';
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from '../../../fakes/fake-slack-oauth';
import { SecretBox } from '../../../src/state/secret-box';
import type { StateStore } from '../../../src/state/store';
import { type AnyInstallation, SlackInstallations } from '../../../src/surfaces/slack/oauth/installations';
import {
  WorkspaceTokens,
  enterpriseOfTeam,
  forgetOrgTeam,
  teamsOfEnterprise,
} from '../../../src/surfaces/slack/oauth/tokens';
import { silentLog } from '../../support/silent-log';
import { rotateKeys } from '../../../src/state/rotate-key';
import { scoped, tenantFor, tenantStore } from '../../../src/state/tenant-store';
import { UnreadableRecord } from '../../../src/state/unreadable';

export interface InstallationBacking {
  /** A store instance on the shared backing (one per bridge instance). */
  open(): Promise<StateStore>;
  /** Everything the backing holds, raw (file bytes, or every key and value). */
  raw(): Promise<string>;
}

const key = () => randomBytes(32);
let n = 0;

function installation(team: string, extra: Partial<AnyInstallation> = {}): AnyInstallation {
  return {
    team: { id: team, name: `Team ${team}` },
    enterprise: undefined,
    user: { id: 'U0OWNER', token: undefined, scopes: undefined },
    bot: { token: `xoxb-secret-${team}-${++n}`, userId: 'UBOT', scopes: ['chat:write'], id: 'BBOT' },
    isEnterpriseInstall: false,
    authVersion: 'v2',
    ...extra,
  } as AnyInstallation;
}

export function runInstallationContract(backing: () => Promise<InstallationBacking>): void {
  let src: InstallationBacking;
  let a: StateStore;
  let b: StateStore;
  const k1 = key();
  const now = { t: 1_800_000_000_000 };
  const clock = () => now.t;
  /** Outbound tokens as an instance reading store `on` sees them. */
  const tokensOn = (on: StateStore): WorkspaceTokens =>
    new WorkspaceTokens({
      installations: new SlackInstallations(on, new SecretBox(k1), clock),
      store: on,
      clientId: FAKE_CLIENT_ID,
      clientSecret: FAKE_CLIENT_SECRET,
      instanceId: 'i1',
      now: clock,
      log: silentLog,
    });

  beforeAll(async () => {
    src = await backing();
    a = await src.open();
    b = await src.open();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('an installation saved by one instance is read by another, by team', async () => {
    const inst = installation(`T${randomBytes(3).toString('hex')}`);
    await new SlackInstallations(a, new SecretBox(k1), clock).save(inst);
    const other = new SlackInstallations(b, new SecretBox(k1), clock);
    expect(await other.load({ teamId: inst.team?.id })).toEqual(inst);
    expect(await other.load({ teamId: 'T0NOBODY' })).toBeUndefined();
  });

  it('an org-wide install is keyed by enterprise and found for any workspace of it', async () => {
    const ent = `E${randomBytes(3).toString('hex')}`;
    const inst = installation('', { team: undefined, enterprise: { id: ent, name: 'Org' }, isEnterpriseInstall: true });
    const store = new SlackInstallations(a, new SecretBox(k1), clock);
    await store.save(inst);
    expect(await a.keys(`slack:installation:enterprise:${ent}`)).toHaveLength(1);
    expect(await store.load({ teamId: 'T0INORG', enterpriseId: ent })).toEqual(inst);
    expect(await store.load({ enterpriseId: ent, isEnterpriseInstall: true })).toEqual(inst);
    // Once Bolt's authorize has resolved a workspace of the org, outbound calls for it find the token.
    const tokens = tokensOn(b);
    await expect(tokens.botToken('T0INORG')).rejects.toThrow(/no installation/);
    await tokens.installation({ teamId: 'T0INORG', enterpriseId: ent });
    expect(await tokens.botToken('T0INORG')).toBe(inst.bot?.token);
    expect(await store.remove({ enterpriseId: ent, isEnterpriseInstall: true })).toBe(true);
    expect(await store.load({ enterpriseId: ent, isEnterpriseInstall: true })).toBeUndefined();
  });

  it('the workspaces an org-wide install served are listed per enterprise, marks of the older shape too', async () => {
    const ent = `E${randomBytes(3).toString('hex')}`;
    const other = `E${randomBytes(3).toString('hex')}`;
    const inst = installation('', { team: undefined, enterprise: { id: ent, name: 'Org' }, isEnterpriseInstall: true });
    await new SlackInstallations(a, new SecretBox(k1), clock).save(inst);
    const tokens = tokensOn(b);
    const [t1, t2, legacy, elsewhere] = ['T1', 'T2', 'T3', 'T4'].map((t) => `${t}${ent}`) as [
      string,
      string,
      string,
      string,
    ];
    await tokens.installation({ teamId: t1, enterpriseId: ent, isEnterpriseInstall: true });
    await tokens.installation({ teamId: t2, enterpriseId: ent, isEnterpriseInstall: true });
    // A mark as bridges wrote it before the org's workspaces were listed: its enterprise as a plain string.
    await b.set(`slack:installation-team:${legacy}`, ent);
    await b.set(`slack:installation-team:${elsewhere}`, other);
    expect((await teamsOfEnterprise(a, ent)).sort()).toEqual([t1, t2, legacy].sort());
    expect(await teamsOfEnterprise(a, other)).toEqual([elsewhere]);
    // Looked up by workspace, in either shape; the older one is moved into the workspace's part on its next request.
    expect(await enterpriseOfTeam(a, legacy)).toBe(ent);
    expect(await tokens.botToken(legacy)).toBe(inst.bot?.token);
    await tokens.installation({ teamId: legacy, enterpriseId: ent, isEnterpriseInstall: true });
    expect(await a.get(`slack:installation-team:${legacy}`)).toBeUndefined();
    expect(await tenantStore(a, tenantFor('slack', legacy)).get(scoped('slack', 'org'))).toEqual({ enterprise: ent });
    expect((await teamsOfEnterprise(a, ent)).sort()).toEqual([t1, t2, legacy].sort());
    // The org-wide install's own id (its installer's DM names no workspace) finds its token.
    expect(await tokens.botToken(ent)).toBe(inst.bot?.token);
    // Forgetting a workspace's marks takes it off the list; another enterprise's mark stays.
    await forgetOrgTeam(a, ent, t1);
    await forgetOrgTeam(a, ent, elsewhere);
    expect((await teamsOfEnterprise(a, ent)).sort()).toEqual([t2, legacy].sort());
    expect(await enterpriseOfTeam(a, t1)).toBeUndefined();
    expect(await enterpriseOfTeam(a, elsewhere)).toBe(other);
  });

  it('as Bolt’s InstallationStore: stores, fetches, refuses an unknown workspace, deletes', async () => {
    const installations = new SlackInstallations(b, new SecretBox(k1), clock);
    const store = installations.asInstallationStore((q) => installations.load(q));
    const inst = installation(`T${randomBytes(3).toString('hex')}`);
    const q = { teamId: inst.team?.id as string, enterpriseId: undefined, isEnterpriseInstall: false as const };
    await store.storeInstallation(inst);
    expect(await store.fetchInstallation(q)).toEqual(inst);
    await store.deleteInstallation?.(q);
    await expect(store.fetchInstallation(q)).rejects.toThrow(/no Slack installation/);
  });

  it('holds no token at rest: bot and refresh tokens are sealed', async () => {
    const inst = installation(`T${randomBytes(3).toString('hex')}`);
    (inst.bot as { refreshToken?: string }).refreshToken = `xoxe-1-refresh-${randomBytes(6).toString('hex')}`;
    await new SlackInstallations(a, new SecretBox(k1), clock).save(inst);
    const raw = await src.raw();
    expect(raw).toContain(`slack:installation:team:${inst.team?.id}`);
    expect(raw).not.toContain(inst.bot?.token);
    expect(raw).not.toContain(inst.bot?.refreshToken);
  });

  it('rotating STATE_ENCRYPTION_KEY: reading writes nothing back; rotate-key re-seals the record with the current key', async () => {
    const inst = installation(`T${randomBytes(3).toString('hex')}`);
    await new SlackInstallations(a, new SecretBox(k1), clock).save(inst);
    const key = `slack:installation:team:${inst.team?.id}`;
    const before = await a.get(key);
    const k2 = randomBytes(32);
    const rotating = new SlackInstallations(b, new SecretBox(k2, k1), clock);
    expect(await rotating.load({ teamId: inst.team?.id })).toEqual(inst);
    // Read under the previous key: nothing was written back (an uninstall meanwhile would stay an uninstall).
    expect(await a.get(key)).toEqual(before);
    await rotateKeys(b, new SecretBox(k2, k1));
    // Now sealed with the new key alone: the old key no longer opens it.
    expect(await new SlackInstallations(a, new SecretBox(k2), clock).load({ teamId: inst.team?.id })).toEqual(inst);
    await expect(new SlackInstallations(a, new SecretBox(k1), clock).load({ teamId: inst.team?.id })).rejects.toThrow(
      UnreadableRecord,
    );
  });

  it('the refresh sweep reads the installations due, by their index: a rotating token is refreshed by the sweep alone', async () => {
    const fake = await new FakeSlack().start();
    try {
      const team = `T${randomBytes(3).toString('hex')}`;
      fake.workspaces.grant('code-sweep', { team, teamName: 'Sweep', user: 'U0OWNER', expiresIn: 12 * 3600 });
      const granted = (await (
        await fetch(`${fake.apiUrl}oauth.v2.access`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            client_id: FAKE_CLIENT_ID,
            client_secret: FAKE_CLIENT_SECRET,
            code: 'code-sweep',
          }),
        })
      ).json()) as { access_token: string; refresh_token: string; expires_in: number };
      const bot = {
        token: granted.access_token,
        refreshToken: granted.refresh_token,
        expiresAt: Math.floor(now.t / 1000) + granted.expires_in,
        userId: 'UBOT',
        id: 'BBOT',
        scopes: [],
      };
      const installs = new SlackInstallations(a, new SecretBox(k1), clock);
      await installs.save(installation(team, { bot }));
      // Installations whose tokens do not expire are not in the sweep's index.
      for (let i = 0; i < 3; i++) await installs.save(installation(`T${randomBytes(3).toString('hex')}`));
      const due = async () => (await installs.expiring(now.t + 3 * 3600_000)).map((d) => d.key);
      expect(await due()).not.toContain(`slack:installation:team:${team}`);
      const tokens = new WorkspaceTokens({
        installations: new SlackInstallations(b, new SecretBox(k1), clock),
        store: b,
        clientId: FAKE_CLIENT_ID,
        clientSecret: FAKE_CLIENT_SECRET,
        apiUrl: fake.apiUrl,
        instanceId: 'i-sweep',
        now: clock,
        log: silentLog,
      });
      expect(await tokens.refreshDue()).toBe(0);
      now.t += 10 * 3600_000;
      expect(await due()).toContain(`slack:installation:team:${team}`);
      expect(await tokens.refreshDue()).toBe(1);
      expect(fake.workspaces.refreshes).toBe(1);
      // Refreshed: due again when the new token nears its end, not now.
      expect(await due()).not.toContain(`slack:installation:team:${team}`);
      expect(await tokens.refreshDue()).toBe(0);
      await installs.remove({ teamId: team });
      now.t += 24 * 3600_000;
      expect(await due()).not.toContain(`slack:installation:team:${team}`);
    } finally {
      await fake.close();
    }
  });

  it('token rotation: refreshed before it expires, once across instances, and every instance reads the new token', async () => {
    const fake = await new FakeSlack().start();
    try {
      const team = `T${randomBytes(3).toString('hex')}`;
      fake.workspaces.grant('code-rot', { team, teamName: 'Rot', user: 'U0OWNER', expiresIn: 12 * 3600 });
      const granted = (await (
        await fetch(`${fake.apiUrl}oauth.v2.access`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: FAKE_CLIENT_ID, client_secret: FAKE_CLIENT_SECRET, code: 'code-rot' }),
        })
      ).json()) as { access_token: string; refresh_token: string; expires_in: number };
      const expiresAt = Math.floor(now.t / 1000) + granted.expires_in;
      const bot = {
        token: granted.access_token,
        refreshToken: granted.refresh_token,
        expiresAt,
        userId: 'UBOT',
        id: 'BBOT',
        scopes: [],
      };
      await new SlackInstallations(a, new SecretBox(k1), clock).save(installation(team, { bot }));
      const tokens = (store: StateStore, instanceId: string) =>
        new WorkspaceTokens({
          installations: new SlackInstallations(store, new SecretBox(k1), clock),
          store,
          clientId: FAKE_CLIENT_ID,
          clientSecret: FAKE_CLIENT_SECRET,
          apiUrl: fake.apiUrl,
          instanceId,
          now: clock,
          log: silentLog,
        });
      const one = tokens(a, 'instance-1');
      const two = tokens(b, 'instance-2');
      // Eight hours in: not yet within the margin.
      now.t += 8 * 3600_000;
      expect(await one.botToken(team)).toBe(granted.access_token);
      expect(fake.workspaces.refreshes).toBe(0);
      // Ten hours in: both instances at once; one refreshes (the lease), the other goes on with the old.
      now.t += 2 * 3600_000;
      await Promise.all([one.botToken(team), two.botToken(team)]);
      expect(fake.workspaces.refreshes).toBe(1);
      const fresh = fake.workspaces.botTokens.get(team);
      expect(fresh).not.toBe(granted.access_token);
      expect(await two.botToken(team)).toBe(fresh);
      expect(await one.botToken(team)).toBe(fresh);
      // The sweep finds nothing left to do, and nothing refreshed twice.
      expect(await two.refreshDue()).toBe(0);
      expect(fake.workspaces.refreshes).toBe(1);
    } finally {
      await fake.close();
    }
  });
}
