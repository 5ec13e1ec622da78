/**
 * Slack redelivers an event it thinks was missed (after 3 s, up to three times, to any instance):
 * the events the Slack surface acts on itself (assistant threads, App Home) are handled once per
 * event id, per workspace and channel, through this one check. Messages are deduplicated in core,
 * by the message's own id, so this is not called for them.
 */
import { claimMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
import { eventEnvelopeSchema } from './payloads';
import { slackRecords } from './records';

/** Long enough to outlast Slack's retries (three, over about 5 minutes). */
const EVENT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/** True the first time this event is seen in `channel`; false for a redelivery (or no event id). */
export async function firstDelivery(store: StateStore, body: unknown, channel: string): Promise<boolean> {
  const env = eventEnvelopeSchema.safeParse(body);
  if (!env.success) return false;
  const team = env.data.team_id ?? '';
  // Kept in the workspace's part (records.ts); an event that names no workspace has no part to be kept in.
  if (team === '')
    return store.setIfAbsent(`slack:event::${channel}:${env.data.event_id}`, Date.now(), EVENT_DEDUPE_TTL_MS);
  const r = slackRecords.event(store, team, channel, env.data.event_id);
  return claimMoving(store, r.view, r.key, r.legacy, Date.now(), EVENT_DEDUPE_TTL_MS);
}
