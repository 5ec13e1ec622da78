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
import type { StateStore } from '../../../state/store';

export const INSTALLATION_PREFIX = 'slack:installation:';
/** A record read this long after its last write is written again: the store's retention counts from writes. */
const TOUCH_MS = 24 * 60 * 60 * 1000;

const recordSchema = z.object({
  sealed: z.string(),
  team: z.string().optional(),
  enterprise: z.string().optional(),
  /** Epoch ms the bot token expires at (token rotation), absent when it does not. */
  expiresAt: z.number().optional(),
  writtenAt: z.number(),
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

export class SlackInstallations {
  constructor(
    private readonly store: StateStore,
    private readonly box: SecretBox,
    private readonly now: () => number,
  ) {}

  async save(inst: AnyInstallation): Promise<void> {
    const parsed = installationSchema.parse(inst);
    const record: InstallationRecord = {
      sealed: this.box.seal(JSON.stringify(inst)),
      writtenAt: this.now(),
      ...(parsed.team ? { team: parsed.team.id } : {}),
      ...(parsed.enterprise ? { enterprise: parsed.enterprise.id } : {}),
      ...(parsed.bot?.expiresAt !== undefined ? { expiresAt: parsed.bot.expiresAt * 1000 } : {}),
    };
    await this.store.set(keyOf(inst), record);
  }

  /** The installation under `key` (installationKey), opened; undefined when there is none. */
  async loadKey(key: string): Promise<AnyInstallation | undefined> {
    const found = recordSchema.safeParse(await this.store.get(key));
    if (!found.success) return undefined;
    const opened = this.box.open(found.data.sealed);
    const inst = installationSchema.parse(JSON.parse(opened.plain)) as unknown as AnyInstallation;
    // Under the previous key (the operator rotates it) or about to age out: written again, sealed anew.
    if (opened.stale || this.now() - found.data.writtenAt > TOUCH_MS) await this.save(inst);
    return inst;
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
    return had;
  }

  /** Keys of every installation, with when its bot token expires (for the refresh sweep). */
  async expiring(): Promise<Array<{ key: string; expiresAt: number }>> {
    const out: Array<{ key: string; expiresAt: number }> = [];
    for (const key of await this.store.keys(INSTALLATION_PREFIX)) {
      const found = recordSchema.safeParse(await this.store.get(key));
      if (found.success && found.data.expiresAt !== undefined) out.push({ key, expiresAt: found.data.expiresAt });
    }
    return out;
  }

  /** Slack's SDK's view of the same records (Bolt's InstallProvider stores and fetches through it). */
  asInstallationStore(fetch: (q: InstallationKey) => Promise<AnyInstallation | undefined>): InstallationStore {
    return {
      storeInstallation: (inst) => this.save(inst as AnyInstallation),
      fetchInstallation: async (q: InstallationQuery<boolean>) => {
        const inst = await fetch(q);
        if (!inst) throw new Error(`no Slack installation for ${q.enterpriseId ?? ''}/${q.teamId ?? ''}`);
        return inst;
      },
      deleteInstallation: async (q: InstallationQuery<boolean>) => {
        await this.remove(q);
      },
    };
  }
}
