/**
 * The Slack surface's own records, every one in its workspace's part of the store (`t:slack:<team>:`,
 * state/tenant-store.ts), so a workspace that leaves takes them with its part and none is found by
 * reading other workspaces' keys. One place names them all, with the global keys they had before
 * (state/moved-records.ts moves a record on its first use after an upgrade):
 * - `slack:assistant:thread:<channel>:<thread>`: an assistant thread's context (what the user had open);
 * - `slack:assistant:titled:<channel>:<thread>`: its title was set;
 * - `slack:agent:context:<user>`: what the user last looked at with the agent open;
 * - `slack:cards:sections`: the workspace refused card blocks and gets sections;
 * - `slack:event:<channel>:<event id>`: an event the surface handles itself was seen (redeliveries);
 * - `slack:native-stream-refused`: native streaming refused here, until when;
 * - `slack:org` / `slack:org-team:<team>`: the org marks of an org-wide install (oauth/tokens.ts).
 * Users' and channels' cached lookups are `cache:` keys of the same part (surfaces/tenant-cache.ts).
 */
import type { StateStore } from '../../state/store';
import {
  type ScopedKey,
  scoped,
  type TenantStore,
  tenantFor,
  tenantPrefix,
  tenantStore,
} from '../../state/tenant-store';

/** One Slack record: where it lives in the workspace's part, and where it lived before. */
export interface SlackRecord {
  view: TenantStore;
  key: ScopedKey;
  legacy: string;
}

/** The part of the store of workspace `team`. */
export function slackPart(store: StateStore, team: string): TenantStore {
  return tenantStore(store, tenantFor('slack', team));
}

const record = (store: StateStore, team: string, key: ScopedKey, legacy: string): SlackRecord => ({
  view: slackPart(store, team),
  key,
  legacy,
});

export const NATIVE_REFUSED = scoped('slack', 'native-stream-refused');

export const slackRecords = {
  assistantThread: (store: StateStore, team: string, channel: string, thread: string): SlackRecord =>
    record(
      store,
      team,
      scoped('slack', 'assistant', 'thread', channel, thread),
      `slack:assistant:thread:${team}:${channel}:${thread}`,
    ),
  assistantTitled: (store: StateStore, team: string, channel: string, thread: string): SlackRecord =>
    record(
      store,
      team,
      scoped('slack', 'assistant', 'titled', channel, thread),
      `slack:assistant:titled:${team}:${channel}:${thread}`,
    ),
  agentContext: (store: StateStore, team: string, user: string): SlackRecord =>
    record(store, team, scoped('slack', 'agent', 'context', user), `slack:agent:context:${team}:${user}`),
  cardsSections: (store: StateStore, team: string): SlackRecord =>
    record(store, team, scoped('slack', 'cards', 'sections'), `slack:cards:sections:${team}`),
  event: (store: StateStore, team: string, channel: string, eventId: string): SlackRecord =>
    record(store, team, scoped('slack', 'event', channel, eventId), `slack:event:${team}:${channel}:${eventId}`),
  nativeRefused: (store: StateStore, team: string): SlackRecord =>
    record(store, team, NATIVE_REFUSED, `slack:${team}:native-stream-refused`),
};

/** A record's full store key: its workspace's prefix and its key. */
export function slackStoreKey(team: string, key: ScopedKey): string {
  return `${tenantPrefix(tenantFor('slack', team))}${key}`;
}

/**
 * The global keys of before that name workspace `id` (leaving: records not yet moved). Read from the
 * old families only: `slack:` keys that remain are the ones above, not yet used since the upgrade.
 */
export async function legacySlackKeysOf(
  store: StateStore,
  id: string,
  keep: (key: string) => boolean,
): Promise<string[]> {
  return (await store.keys('slack:')).filter(
    (k) => !keep(k) && k.split(':').some((part) => decodeURIComponent(part) === id),
  );
}
