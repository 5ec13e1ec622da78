/**
 * Listing links unfurl as Work Objects. Slack sends `link_shared` for links of the manifest's
 * `unfurl_domains` (LISTING_UNFURL_DOMAINS); each link that is a listing of the tenant's chatbot
 * (core's URL index: no service call while it is fresh) is answered with one chat.unfurl carrying
 * `metadata.entities` (work-objects.ts); a link that is no listing is left alone. A workspace
 * without Work Objects refuses the metadata: it gets classic unfurl blocks, and is remembered (in
 * its part of the store) to get them straight away from then on. Clicking the Work Object opens
 * the flexpane: `entity_details_requested`, answered with entity.presentDetails (the full listing
 * and its actions), or a not-found error for a listing that is gone.
 */
import type { App, Context } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { BridgeCore, ListingPreview, Place } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { scoped, tenantFor, tenantStore } from '../../state/tenant-store';
import { eventEnvelopeSchema } from './payloads';
import type { SlackPort } from './port';
import { firstDelivery } from './redelivery';
import { teamOf } from './request-team';
import { slackErrorCode } from './web';
import { listingDetails, listingEntity, listingUnfurlBlocks } from './work-objects';

const id = z.string().min(1).max(255);

const linkSharedSchema = z.object({
  type: z.literal('link_shared'),
  channel: id,
  user: id.optional(),
  message_ts: id.optional(),
  unfurl_id: z.string().max(500).optional(),
  source: z.string().max(100).optional(),
  links: z.array(z.object({ domain: z.string().max(255), url: z.string().max(3000) })).max(50),
});

const detailsRequestedSchema = z.object({
  type: z.literal('entity_details_requested'),
  user: id,
  trigger_id: z.string().min(1).max(500),
  channel: id.optional(),
  external_ref: z.object({ id: z.string().min(1).max(255), type: z.string().max(255).optional() }),
  entity_url: z.string().max(3000).optional(),
});

/** Errors that say a workspace takes no Work Object metadata (the unfurl goes again as blocks). */
const NO_WORK_OBJECTS = new Set(['feature_not_enabled', 'not_allowed', 'not_supported']);
/** How long a workspace without Work Objects gets classic unfurls before they are tried again. */
const REMEMBER_MS = 7 * 24 * 60 * 60 * 1000;
const NO_WO_KEY = scoped('slack', 'no-work-objects');

export interface UnfurlDeps {
  app: App;
  port: SlackPort;
  store: StateStore;
  log: Logger;
  core: () => BridgeCore | undefined;
  team: () => string;
  /** LISTING_UNFURL_DOMAINS: the hosts whose links are looked up (empty: every link Slack sends). */
  domains: string[];
}

function inDomains(domains: string[], url: string): boolean {
  if (domains.length === 0) return true;
  try {
    const host = new URL(url).hostname.toLowerCase();
    return domains.some((d) => host === d || host.endsWith(`.${d}`));
  } catch {
    return false;
  }
}

export function registerUnfurls(d: UnfurlDeps): void {
  const workspaceOf = (body: unknown, context: Context): string => {
    const env = eventEnvelopeSchema.safeParse(body);
    return (env.success ? env.data.team_id : undefined) ?? teamOf(d, context);
  };

  d.app.event('link_shared', async ({ body, event, context }) => {
    try {
      const shared = linkSharedSchema.safeParse(event);
      if (!shared.success || !(await firstDelivery(d.store, body, shared.data.channel))) return;
      const core = d.core();
      const urls = shared.data.links.map((l) => l.url).filter((u) => inDomains(d.domains, u));
      if (!core?.listingPreviews || urls.length === 0) return;
      const place: Place = { surface: 'slack', workspace: workspaceOf(body, context), channel: shared.data.channel };
      const found = await core.listingPreviews(place, urls);
      // No listing among the links: Slack shows them as it would without the app.
      if (found.size === 0) return;
      await unfurl(d, place, shared.data, found);
    } catch (err) {
      d.log.warn({ err }, 'slack: link_shared failed');
    }
  });

  d.app.event('entity_details_requested', async ({ body, event, context }) => {
    try {
      const asked = detailsRequestedSchema.safeParse(event);
      if (!asked.success) return;
      const core = d.core();
      if (!core?.listingPreview) return;
      const place: Place = {
        surface: 'slack',
        workspace: workspaceOf(body, context),
        channel: asked.data.channel ?? '',
      };
      const p = await core.listingPreview(place, asked.data.external_ref.id);
      const args = p
        ? { trigger_id: asked.data.trigger_id, metadata: listingDetails(p) }
        : { trigger_id: asked.data.trigger_id, error: { status: 'not_found' } };
      await d.port.gateway.methodCall(place, 'entity.presentDetails', args, 3);
    } catch (err) {
      d.log.warn({ code: slackErrorCode(err) ?? String(err) }, 'slack: entity details failed');
    }
  });
}

/** chat.unfurl of the listings found: as Work Objects, or classic blocks where the workspace has none. */
async function unfurl(
  d: UnfurlDeps,
  place: Place,
  shared: z.infer<typeof linkSharedSchema>,
  found: Map<string, ListingPreview>,
): Promise<void> {
  const where =
    shared.unfurl_id && shared.source
      ? { unfurl_id: shared.unfurl_id, source: shared.source }
      : { channel: shared.channel, ts: shared.message_ts };
  const view = tenantStore(d.store, tenantFor('slack', place.workspace || d.team()));
  const classic = async (): Promise<void> => {
    const unfurls = Object.fromEntries([...found].map(([url, p]) => [url, { blocks: listingUnfurlBlocks(p) }]));
    await d.port.gateway.methodCall(place, 'chat.unfurl', { ...where, unfurls }, 3);
  };
  if ((await view.get(NO_WO_KEY).catch(() => undefined)) !== undefined) return classic();
  const entities = [...found].map(([url, p]) => listingEntity(p, url));
  try {
    await d.port.gateway.methodCall(place, 'chat.unfurl', { ...where, metadata: { entities } }, 3);
  } catch (err) {
    const code = slackErrorCode(err);
    if (!code || !NO_WORK_OBJECTS.has(code)) throw err;
    await view.set(NO_WO_KEY, Date.now(), REMEMBER_MS).catch(() => undefined);
    d.log.info(
      { team: place.workspace, code },
      'slack: this workspace takes no Work Objects; listing links unfurl as blocks',
    );
    await classic();
  }
}
