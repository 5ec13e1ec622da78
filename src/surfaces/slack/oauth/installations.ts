/**
 * Slack installations ("Add to Slack") kept in the bridge's own state store, so every instance on
 * one SQLite file or Redis sees the same workspaces. One record per workspace (`team`), or per
 * enterprise for an org-wide install. The installation as Slack's SDK shapes it (tokens included) is
 * sealed whole with the state encryption key (../../../state/secret-box.ts): the raw store holds no
 * token. Beside the sealed blob only what finding a record needs is readable (team, enterprise, when a
 * rotating token expires).
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import { z } from 'zod';
import type { SecretBox } from '../../../state/secret-box';
import type { Json, StateStore } from '../../../state/store';
import { UnreadableRecord } from '../../../state/unreadable';
import { replaceIfUnchanged, updateVersioned } from '../../../state/versioned';

/** A record in use is kept alive (its time to live renewed, nothing written) at most this often. */
const TOUCH_MS = 24 * 60 * 60 * 1000;

export const INSTALLATION_PREFIX = 'slack:installation:';
/**
 * The due index of installations whose bot token expires (token rotation), by when it does: the
 * refresh sweep reads those due soon, never every installation (issue 38: 1,000 installed workspaces
 * cost a read each every sweep). Written with every install and refresh, left on uninstall.
 */
const TOKEN_EXPIRY_INDEX = 'slack-token-expiry';
/** Installations a sweep refreshes at most (the rest are due on the next). */
const REFRESH_PER_SWEEP = 1_000;

const recordSchema = z.object({
  sealed: z.string(),
  team: z.string().optional(),
  enterprise: z.string().optional(),
  /** Epoch ms the bot token expires at (token rotation), absent when it does not. */
  expiresAt: z.number().optional(),
  writtenAt: z.number(),
  /** Raised by every write (state/versioned.ts): a write starts from the version it read, or loses. */
  version: z.number().optional(),
});
type InstallationRecord = z.infer<typeof recordSchema>;

/** What the bridge relies on in an opened installation; the rest is kept as Slack's SDK wrote it. */
const installationSchema = z
  .object({
    team: z.object({ id: z.string(), name: z.string().optional() }).passthrough().optional(),
    enterprise: z.object({ id: z.string() }).passthrough().optional(),
    isEnterpriseInstall: z.boolean().optional(),
    bot: z
      .object({
        token: z.string(),
        userId: z.string(),
        refreshToken: z.string().optional(),
        /** Seconds since the epoch, as the SDK keeps it. */
        expiresAt: z.number().optional(),
      })
      .passthrough()
      .optional(),
    user: z.object({ id: z.string() }).passthrough(),
  })
  .passthrough();

export type AnyInstallation = Installation<'v1' | 'v2', boolean>;

/** Which workspace (or enterprise, for an org-wide install) a record is for. */
export interface InstallationKey {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

export function installationKey(q: InstallationKey): string {
  if (q.isEnterpriseInstall && q.enterpriseId) return `${INSTALLATION_PREFIX}enterprise:${q.enterpriseId}`;
  if (!q.teamId) throw new Error('a Slack installation needs a team id (or an enterprise id for an org-wide install)');
  return `${INSTALLATION_PREFIX}team:${q.teamId}`;
}

export function keyOf(inst: AnyInstallation): string {
  return installationKey({
    teamId: inst.team?.id,
    enterpriseId: inst.enterprise?.id,
    isEnterpriseInstall: inst.isEnterpriseInstall,
  });
}

/** An installation opened, with the record it was read from (what a compare-and-set expects). */
export interface ReadInstallation {
  inst: AnyInstallation;
  read: Json;
}

export class SlackInstallations {
  constructor(
    private readonly store: StateStore,
    private readonly box: SecretBox,
    private readonly now: () => number,
  ) {}

  private record(inst: AnyInstallation): Omit<InstallationRecord, 'version'> {
    const parsed = installationSchema.parse(inst);
    return {
      sealed: this.box.seal(JSON.stringify(inst)),
      writtenAt: this.now(),
      ...(parsed.team ? { team: parsed.team.id } : {}),
      ...(parsed.enterprise ? { enterprise: parsed.enterprise.id } : {}),
      ...(parsed.bot?.expiresAt !== undefined ? { expiresAt: parsed.bot.expiresAt * 1000 } : {}),
    };
  }

  /** An install (Add to Slack): the newest state, written over whatever version is there. */
  async save(inst: AnyInstallation): Promise<void> {
    const record = this.record(inst);
    await updateVersioned(this.store, keyOf(inst), () => record);
    await this.indexExpiry(keyOf(inst), record.expiresAt);
  }

  /** The installation's place in the refresh sweep's index: due when its token expires, none when it does not. */
  private async indexExpiry(key: string, expiresAt: number | undefined): Promise<void> {
    if (expiresAt === undefined) await this.store.unschedule(TOKEN_EXPIRY_INDEX, key);
    else await this.store.schedule(TOKEN_EXPIRY_INDEX, key, expiresAt);
  }

  /**
   * The refreshed installation, written only when the record is still the one `was` read from: false
   * when an uninstall, a re-install or another refresh came first (theirs is the newer state).
   */
  async replace(was: ReadInstallation, inst: AnyInstallation): Promise<boolean> {
    const record = this.record(inst);
    const replaced = await replaceIfUnchanged(this.store, keyOf(inst), was.read, record);
    if (replaced) await this.indexExpiry(keyOf(inst), record.expiresAt);
    return replaced;
  }

  /**
   * The installation under `key` (installationKey), opened, with the record read; undefined when there
   * is none. Reading writes nothing back: a record in use is kept alive (`touch`, no value written),
   * and one sealed with STATE_ENCRYPTION_KEY_PREVIOUS stays so until `npm run rotate-key`. A record
   * no key opens throws UnreadableRecord.
   */
  async read(key: string): Promise<ReadInstallation | undefined> {
    const raw = await this.store.get(key);
    const found = recordSchema.safeParse(raw);
    if (!found.success || raw === undefined) return undefined;
    let plain: string;
    try {
      plain = this.box.open(found.data.sealed).plain;
    } catch (err) {
      throw new UnreadableRecord(key, err);
    }
    const inst = installationSchema.parse(JSON.parse(plain)) as unknown as AnyInstallation;
    // The store's retention counts from writes: a record in use lives on, with nothing written.
    if (this.now() - found.data.writtenAt > TOUCH_MS) await this.store.touch(key);
    return { inst, read: raw };
  }

  /** The installation under `key` (installationKey), opened; undefined when there is none. */
  async loadKey(key: string): Promise<AnyInstallation | undefined> {
    return (await this.read(key))?.inst;
  }

  /** A workspace's own installation, else its enterprise's org-wide one. */
  async load(q: InstallationKey): Promise<AnyInstallation | undefined> {
    if (!q.isEnterpriseInstall && q.teamId) {
      const own = await this.loadKey(installationKey({ teamId: q.teamId }));
      if (own || !q.enterpriseId) return own;
    }
    if (q.enterpriseId)
      return this.loadKey(installationKey({ enterpriseId: q.enterpriseId, isEnterpriseInstall: true }));
    return undefined;
  }

  async remove(q: InstallationKey): Promise<boolean> {
    const key = installationKey(q);
    const had = (await this.store.get(key)) !== undefined;
    await this.store.delete(key);
    await this.store.unschedule(TOKEN_EXPIRY_INDEX, key);
    return had;
  }

  /**
   * Keys of the installations whose bot token expires by `until`, with when (for the refresh sweep),
   * from the index. `everyRecord`: every installation is read once first, and those written before
   * the index (an older version) join it: the first sweep of a process.
   */
  async expiring(until: number, everyRecord = false): Promise<Array<{ key: string; expiresAt: number }>> {
    if (everyRecord) {
      for (const key of await this.store.keys(INSTALLATION_PREFIX)) {
        const found = recordSchema.safeParse(await this.store.get(key));
        if (found.success && found.data.expiresAt !== undefined) await this.indexExpiry(key, found.data.expiresAt);
      }
    }
    const due = await this.store.due(TOKEN_EXPIRY_INDEX, until, REFRESH_PER_SWEEP);
    return due.map((d) => ({ key: d.member, expiresAt: d.dueAt }));
  }

  /** An installation the sweep found gone (uninstalled, expired) leaves the index. */
  async forgetExpiry(key: string): Promise<void> {
    await this.store.unschedule(TOKEN_EXPIRY_INDEX, key);
  }

  /**
   * Slack's SDK's view of the same records (Bolt's InstallProvider stores and fetches through it).
   * What it fetches carries no refresh token: the bridge's own refresh (tokens.ts) is the one path that
   * rotates tokens, under its lease and compare-and-set; the InstallProvider's, within 2 hours of
   * expiry, would be a second writer racing it.
   */
  asInstallationStore(fetch: (q: InstallationKey) => Promise<AnyInstallation | undefined>): InstallationStore {
    return {
      storeInstallation: (inst) => this.save(inst as AnyInstallation),
      fetchInstallation: async (q: InstallationQuery<boolean>) => {
        const inst = await fetch(q);
        if (!inst) throw new Error(`no Slack installation for ${q.enterpriseId ?? ''}/${q.teamId ?? ''}`);
        return withoutRefresh(inst);
      },
      deleteInstallation: async (q: InstallationQuery<boolean>) => {
        await this.remove(q);
      },
    };
  }
}

/** The installation as Bolt's authorize may see it: its tokens, none of them refreshable by Bolt. */
function withoutRefresh(inst: AnyInstallation): AnyInstallation {
  const strip = <T extends { refreshToken?: string; expiresAt?: number }>(who: T | undefined): T | undefined => {
    if (!who) return who;
    const { refreshToken: _r, expiresAt: _e, ...rest } = who;
    return rest as T;
  };
  return { ...inst, bot: strip(inst.bot), user: strip(inst.user) as AnyInstallation['user'] } as AnyInstallation;
}
