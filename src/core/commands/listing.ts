/**
 * `/listing show|create|update|delete`: one listing by `id:`, `mls:` or `url:`. Writes are for
 * admins; create/update take `Field:value` pairs or open a form; delete asks to confirm.
 */
import { forgetListingIndex } from '../listings/url-index';
import { z } from 'zod';
import type { Listing } from '../../service/schemas/listings';
import type { TenantScope } from '../context';
import {
  coerceListingValues,
  describeFieldErrors,
  listingFormFields,
  listingToText,
  validateListing,
  type FieldErrors,
  formErrorsInWords,
  type ListingFieldName,
  LISTING_FIELDS,
} from '../listings/fields';
import { listingsChanged } from '../listings/catalogue-scan';
import { writableChatbot } from '../tenants/scope';
import { decodeKey, describeKey, encodeKey, findListings, type ListingKey } from '../listings/find';
import { listingCard, listingTitle } from '../listings/format';
import type { FormResult, Invocation } from '../surface';
import { LISTING_SHOW_ACTION } from '../listings/card-actions';
import { LISTING_EDIT, onDetailsPressed, showListing } from './listing-show';
import { UsageError, isHelp, parseArgs, splitHead, tokenize, type Token } from './grammar';
import { usageOf } from './catalogue';
import { RefusalError, guarded, guardedCommand, requireAdmin, describeError } from './respond';
import { knownLine } from '../user-messages';
import { RequestValidationError, ServiceError } from '../../service/errors';

const USAGE = usageOf('listing');

export const LISTING_CREATE_FORM = 'listing.create';
export const LISTING_UPDATE_FORM = 'listing.update';
export const LISTING_DELETE_CONFIRM = 'listing.delete.confirm';
export const LISTING_DELETE_CANCEL = 'listing.delete.cancel';

const KEY_TYPES = { id: 'ListingId', mls: 'MLSNumber', url: 'URL' } as const;

const keySchema = z.discriminatedUnion('keyType', [
  z.object({ keyType: z.literal('ListingId'), key: z.string().trim().min(1, 'id: give the listing id, e.g. id:42') }),
  z.object({
    keyType: z.literal('MLSNumber'),
    key: z.string().trim().min(1, 'mls: give the MLS number, e.g. mls:TX-1001'),
  }),
  z.object({
    keyType: z.literal('URL'),
    key: z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/i, 'url: give the listing URL, e.g. url:https://example.com/listing/1'),
  }),
]);

/** The key token: `id:`, `mls:`, `url:`; a bare number is an id and a bare http URL a url. */
function parseKey(token: Token | undefined): ListingKey {
  if (!token) throw new UsageError('Say which listing: id:<ListingId>, mls:<MLS> or url:<URL>.', USAGE);
  let raw: { keyType: string; key: string } | undefined;
  if (token.key !== undefined) {
    const keyType = KEY_TYPES[token.key.toLowerCase() as keyof typeof KEY_TYPES];
    if (keyType) raw = { keyType, key: token.value };
  } else if (/^\d+$/.test(token.value)) raw = { keyType: 'ListingId', key: token.value };
  else if (/^https?:\/\//i.test(token.value)) raw = { keyType: 'URL', key: token.value };
  if (!raw) {
    const typed = token.key !== undefined ? `${token.key}:${token.value}` : token.value;
    throw new UsageError(`"${typed}" is not a listing key: use id:<ListingId>, mls:<MLS> or url:<URL>.`, USAGE);
  }
  return parseArgs(keySchema, raw, USAGE);
}

/** `Field:value` pairs; bare words are reported (usually an unquoted value with a space). */
function parsePairs(tokens: Token[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const t of tokens) {
    if (t.key === undefined) {
      throw new UsageError(
        `"${t.value}" is not a Field:value pair. Quote values with spaces, e.g. AreaUnit:"Square Feet".`,
        USAGE,
      );
    }
    if (pairs[t.key] !== undefined) throw new UsageError(`${t.key} is given twice.`, USAGE);
    pairs[t.key] = t.value;
  }
  return pairs;
}

export type ListingArgs =
  | { sub: 'help' }
  | { sub: 'show'; key: ListingKey }
  | { sub: 'delete'; key: ListingKey }
  | { sub: 'create'; pairs: Record<string, string> }
  | { sub: 'update'; key: ListingKey; pairs: Record<string, string> };

export function parseListingArgs(args: string): ListingArgs {
  if (isHelp(args) || args.trim() === '') return { sub: 'help' };
  const { head, rest } = splitHead(args);
  const sub = head.toLowerCase();
  const tokens = tokenize(rest);
  switch (sub) {
    case 'show':
    case 'delete': {
      const key = parseKey(tokens[0]);
      if (tokens.length > 1) throw new UsageError(`/listing ${sub} takes one key; unexpected "${rest}".`, USAGE);
      return { sub, key };
    }
    case 'create':
      return { sub, pairs: parsePairs(tokens) };
    case 'update':
      return { sub, key: parseKey(tokens[0]), pairs: parsePairs(tokens.slice(1)) };
    default:
      throw new UsageError(`Unknown subcommand "${head}": use show, create, update or delete.`, USAGE);
  }
}

async function findOne(ctx: TenantScope, key: ListingKey): Promise<Listing> {
  const found = await findListings(ctx, key);
  const first = found[0];
  if (!first)
    throw new RefusalError(`No listing matches ${describeKey(key)}. Check the key, or find it with /listings.`);
  return first;
}

// ---- create / update ------------------------------------------------------------------------------

type Outcome = { ok: true; text: string } | { ok: false; errors: FieldErrors };

/** Service refusals that name a field become that field's error (inline in forms). */
function serviceErrors(err: unknown): FieldErrors | undefined {
  if (err instanceof RequestValidationError) {
    const errors: FieldErrors = {};
    for (const i of err.issues) errors[i.field.split('.')[0] || 'SaleType'] = i.message;
    return errors;
  }
  // A refusal in the service's words; its failing (5xx) is internal: told by reference by the caller.
  if (err instanceof ServiceError && knownLine(err) !== undefined) {
    const named = LISTING_FIELDS.find((d) => new RegExp(`\\b${d.name}\\b`).test(err.message));
    return { [named?.name ?? 'SaleType']: `The chatbot service refused: ${err.message}` };
  }
  return undefined;
}

/** The tenant's listing URL index (listings/url-index.ts) is read again on its next link. */
async function urlIndexChanged(ctx: TenantScope): Promise<void> {
  await forgetListingIndex(ctx);
}

async function createListing(ctx: TenantScope, raw: Record<string, string>): Promise<Outcome> {
  const { values, errors } = coerceListingValues(raw);
  const chatbot = writableChatbot(ctx);
  const checked = validateListing(chatbot.chatbotId, values);
  if (Object.keys(errors).length > 0 || !checked.ok)
    return { ok: false, errors: { ...(checked.ok ? {} : checked.errors), ...errors } };
  try {
    const id = await chatbot.client.createListing(checked.body);
    listingsChanged(ctx);
    await urlIndexChanged(ctx);
    const label = checked.body.Address ?? `MLS ${checked.body.MLSNumber}`;
    return { ok: true, text: `Listing created: ID ${id} (${label}). Show it with /listing show id:${id}` };
  } catch (err) {
    const errs = serviceErrors(err);
    if (errs) return { ok: false, errors: errs };
    throw err;
  }
}

/**
 * The update body carries every required field, so the pairs are laid over the listing's current
 * values (forms in several parts, e.g. Discord's modals, may send a few fields only).
 */
async function updateListing(ctx: TenantScope, key: ListingKey, raw: Record<string, string>): Promise<Outcome> {
  const current = await findOne(ctx, key);
  const pairs = coerceListingValues(raw);
  if (Object.keys(pairs.errors).length > 0) return { ok: false, errors: pairs.errors };
  const base = coerceListingValues(listingToText(current));
  const chatbot = writableChatbot(ctx);
  const checked = validateListing(chatbot.chatbotId, { ...base.values, ...pairs.values });
  if (!checked.ok) return { ok: false, errors: checked.errors };
  try {
    const count = await chatbot.client.updateListing({ ...checked.body, Key: key.key, KeyType: key.keyType });
    listingsChanged(ctx);
    await urlIndexChanged(ctx);
    if (count === 0) return { ok: true, text: `Nothing matched ${describeKey(key)}; no listing was updated.` };
    const changed = Object.keys(pairs.values);
    const what = changed.length > 0 ? ` (${changed.join(', ')})` : '';
    return { ok: true, text: `Updated ${count} listing${count === 1 ? '' : 's'} for ${describeKey(key)}${what}.` };
  } catch (err) {
    const errs = serviceErrors(err);
    if (errs) return { ok: false, errors: errs };
    throw err;
  }
}

function errorsText(what: string, errors: FieldErrors): string {
  return `The listing was not ${what}:\n${describeFieldErrors(errors)}\n\nFix the values and try again (/listing help lists the fields).`;
}

function formsUnavailable(): UsageError {
  return new UsageError('Forms cannot be opened here: give the fields as Field:value pairs.', USAGE);
}

async function submitCreate(
  ctx: TenantScope,
  inv: Invocation,
  _state: string,
  values: Record<string, string>,
): Promise<FormResult> {
  if (!inv.actor.isAdmin) return { ok: false, errors: { SaleType: 'Only admins may create listings.' } };
  const outcome = await createListing(ctx, values);
  if (!outcome.ok) return { ok: false, errors: formErrorsInWords(outcome.errors) };
  await inv.reply({ text: outcome.text });
  return { ok: true };
}

async function submitUpdate(
  ctx: TenantScope,
  inv: Invocation,
  state: string,
  values: Record<string, string>,
): Promise<FormResult> {
  if (!inv.actor.isAdmin) return { ok: false, errors: { SaleType: 'Only admins may update listings.' } };
  const key = decodeKey(state);
  if (!key) return { ok: false, errors: { SaleType: 'This form is out of date; run /listing update again.' } };
  try {
    const outcome = await updateListing(ctx, key, values);
    if (!outcome.ok) return { ok: false, errors: formErrorsInWords(outcome.errors) };
    await inv.reply({ text: outcome.text });
    return { ok: true };
  } catch (err) {
    return { ok: false, errors: { SaleType: describeError(ctx, err, 'listing') } };
  }
}

// ---- delete ---------------------------------------------------------------------------------------

async function confirmDelete(ctx: TenantScope, inv: Invocation, value: string): Promise<void> {
  await guarded(ctx, inv, 'listing', async () => {
    requireAdmin(inv, 'delete listings');
    const key = decodeKey(value);
    if (!key) throw new UsageError('That button is out of date; run /listing delete again.', USAGE);
    const chatbot = writableChatbot(ctx);
    const count = await chatbot.client.deleteListings(chatbot.chatbotId, [key.key], key.keyType);
    listingsChanged(ctx);
    await urlIndexChanged(ctx);
    const text =
      count === 0
        ? `Nothing matched ${describeKey(key)}; nothing was deleted.`
        : `Deleted ${count} listing${count === 1 ? '' : 's'} (${describeKey(key)}).`;
    if (inv.update) await inv.update({ text });
    else await inv.reply({ text });
  });
}

async function cancelDelete(ctx: TenantScope, inv: Invocation, value: string): Promise<void> {
  await guarded(ctx, inv, 'listing', async () => {
    const key = decodeKey(value);
    const text = `Delete cancelled${key ? ` (${describeKey(key)})` : ''}; nothing was changed.`;
    if (inv.update) await inv.update({ text });
    else await inv.reply({ text }, { ephemeral: true });
  });
}

// ---- the command ------------------------------------------------------------------------------------

/** The Edit button of /listing show: the update form, prefilled. */
async function editListing(ctx: TenantScope, inv: Invocation, value: string): Promise<void> {
  await guarded(ctx, inv, 'listing', async () => {
    const key = decodeKey(value);
    if (!key) throw new UsageError('That Edit button is out of date; run /listing show again.', USAGE);
    await run(
      ctx,
      inv,
      `update ${key.keyType === 'ListingId' ? 'id' : key.keyType === 'MLSNumber' ? 'mls' : 'url'}:${JSON.stringify(key.key)}`,
    );
  });
}

async function run(ctx: TenantScope, inv: Invocation, args: string): Promise<void> {
  const parsed = parseListingArgs(args);
  switch (parsed.sub) {
    case 'help':
      await inv.reply({ text: USAGE }, { ephemeral: true });
      return;
    case 'show':
      await showListing(ctx, inv, parsed.key);
      return;
    case 'create': {
      requireAdmin(inv, 'create listings');
      if (Object.keys(parsed.pairs).length === 0) {
        if (!inv.openForm) throw formsUnavailable();
        await inv.openForm({
          id: LISTING_CREATE_FORM,
          title: 'New listing',
          state: '',
          fields: listingFormFields(),
          submitLabel: 'Create',
        });
        return;
      }
      const outcome = await createListing(ctx, parsed.pairs);
      if (!outcome.ok) await inv.reply({ text: errorsText('created', outcome.errors) }, { ephemeral: true });
      else await inv.reply({ text: outcome.text });
      return;
    }
    case 'update': {
      requireAdmin(inv, 'update listings');
      if (Object.keys(parsed.pairs).length === 0) {
        if (!inv.openForm) throw formsUnavailable();
        const current = await findOne(ctx, parsed.key);
        await inv.openForm({
          id: LISTING_UPDATE_FORM,
          title: `Update ${listingTitle(current)}`.slice(0, 60),
          state: encodeKey(parsed.key),
          fields: listingFormFields(listingToText(current) as Partial<Record<ListingFieldName, string>>),
          submitLabel: 'Save',
        });
        return;
      }
      const outcome = await updateListing(ctx, parsed.key, parsed.pairs);
      if (!outcome.ok) await inv.reply({ text: errorsText('updated', outcome.errors) }, { ephemeral: true });
      else await inv.reply({ text: outcome.text });
      return;
    }
    case 'delete': {
      requireAdmin(inv, 'delete listings');
      const current = await findOne(ctx, parsed.key);
      const value = encodeKey(parsed.key);
      await inv.reply(
        {
          text: `Delete ${listingTitle(current)} (${describeKey(parsed.key)})? This cannot be undone.`,
          cards: [listingCard(current)],
          buttons: [
            { action: LISTING_DELETE_CONFIRM, label: 'Delete', value, style: 'danger' },
            { action: LISTING_DELETE_CANCEL, label: 'Cancel', value },
          ],
        },
        { ephemeral: true },
      );
      return;
    }
  }
}

export const listingCommand = guardedCommand('listing', {
  // The catalogue lets everyone run it: show is for everyone; writes check the admin list themselves.
  body: run,
  actions: {
    [LISTING_DELETE_CONFIRM]: confirmDelete,
    [LISTING_DELETE_CANCEL]: cancelDelete,
    [LISTING_EDIT]: editListing,
    [LISTING_SHOW_ACTION]: onDetailsPressed,
  },
  forms: { [LISTING_CREATE_FORM]: submitCreate, [LISTING_UPDATE_FORM]: submitUpdate },
  // The listings are the chatbot's: on the shared chatbot, the operator's (show stays everyone's).
  operatorOnly: {
    subcommands: ['create', 'update', 'delete'],
    actions: [LISTING_DELETE_CONFIRM, LISTING_EDIT],
    forms: [LISTING_CREATE_FORM, LISTING_UPDATE_FORM],
  },
});
