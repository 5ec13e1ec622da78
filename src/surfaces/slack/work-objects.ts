/**
 * A listing as Slack shows a pasted link of it: a Work Object (`metadata.entities` of chat.unfurl,
 * typed by @slack/types' EntityMetadata) and, for the flexpane, the full listing with its actions
 * (entity.presentDetails); the classic unfurl blocks where a workspace has no Work Objects. The one
 * place these payloads are built (the listing's words are the service's: plain text fields only).
 */
import type { types } from '@slack/bolt';
import type { ListingPreview } from '../../core/surface';
import { ACTION_PREFIX, renderMessage } from './blocks';

/** A listing is a page of the listing site: Slack's content item (it has a preview image and a description). */
export const LISTING_ENTITY_TYPE = 'slack#/entities/content_item';
/** The kind of thing the entity's external_ref names. */
const REF_TYPE = 'listing';

const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** The listing's figures as custom fields, in the order a reader takes them in. */
function factFields(p: ListingPreview): types.EntityCustomField[] {
  const facts: Array<[string, string, string | undefined]> = [
    ['price', 'Price', p.price],
    ['beds_baths', 'Beds / baths', p.bedsBaths],
    ['area', 'Area', p.area],
    ['status', 'Status', p.status],
    ['city', 'City', p.city],
  ];
  return facts
    .filter((f): f is [string, string, string] => f[2] !== undefined && f[2] !== '')
    .map(([key, label, value]) => ({ key, label, type: 'string', value: clip(value, 500) }));
}

/** A button of the bridge as a Work Object action: routed like every other press (blocks.ts's action ids). */
function entityAction(b: ListingPreview['actions'][number], i: number): types.EntityActionButton {
  return {
    text: clip(b.label, 75),
    action_id: `${ACTION_PREFIX}${b.action}:${2000 + i}`,
    value: JSON.stringify({ a: b.action, v: b.value }).slice(0, 2000),
    ...(b.style === 'primary' ? { style: 'primary' } : {}),
  };
}

function payloadOf(p: ListingPreview, custom: types.EntityCustomField[]): types.EntityMetadata['entity_payload'] {
  const fields: types.ContentItemEntityFields = {};
  if (p.photo) fields.preview = { alt_text: clip(`Photo of ${p.title}`, 2000), image_url: p.photo };
  if (p.description) fields.description = { value: p.description };
  return {
    attributes: {
      title: { text: clip(p.title, 200) },
      display_type: 'Listing',
      ...(p.mls ? { display_id: `MLS ${p.mls}` } : {}),
    },
    fields,
    custom_fields: custom,
    display_order: [...custom.map((f) => f.key), ...Object.keys(fields)],
  };
}

/** The Work Object of a listing link as posted (`posted`: the URL exactly as in the message). */
export function listingEntity(p: ListingPreview, posted: string): types.EntityMetadata {
  return {
    app_unfurl_url: posted,
    url: p.url || posted,
    external_ref: { id: p.id, type: REF_TYPE },
    entity_type: LISTING_ENTITY_TYPE,
    entity_payload: payloadOf(p, factFields(p)),
  };
}

/**
 * The flexpane: the full listing (every fact of `/listing show`, by group) and what one can do about
 * it (Ask about a viewing, Talk to a human).
 */
export function listingDetails(p: ListingPreview): types.EntityMetadata {
  const custom = factFields(p);
  const have = new Set(custom.map((f) => f.label));
  let n = 0;
  for (const g of p.detail.groups ?? []) {
    for (const f of g.fields) {
      if (have.has(f.label) || f.value === '') continue;
      custom.push({ key: `fact_${++n}`, label: clip(f.label, 100), type: 'string', value: clip(f.value, 500) });
    }
  }
  const payload = payloadOf(p, custom);
  payload.actions = { primary_actions: p.actions.map(entityAction) };
  return {
    url: p.url,
    external_ref: { id: p.id, type: REF_TYPE },
    entity_type: LISTING_ENTITY_TYPE,
    entity_payload: payload,
  };
}

/** The classic unfurl of a listing link (a workspace without Work Objects): the listing's compact card. */
export function listingUnfurlBlocks(p: ListingPreview): unknown[] {
  const card = {
    title: p.title,
    url: p.url,
    fields: [],
    badge: p.status,
    subtitle: [p.price, p.bedsBaths, p.area].filter(Boolean).join(' · '),
    ...(p.city ? { body: p.city } : {}),
    ...(p.photo ? { imageUrl: p.photo } : {}),
    actions: p.actions,
  };
  // As sections (unfurls take no carousel).
  return renderMessage({ text: '', cards: [card] }, 'sections').blocks;
}
