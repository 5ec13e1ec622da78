/**
 * OutMessage -> Discord message body. Discord's limits live here: content 2,000 characters, 10
 * embeds of at most 6,000 characters in all, 5 rows of 5 buttons, labels of 80, custom ids of 100.
 */
import { TextDisplayBuilder, type APIMessageTopLevelComponent, type RawFile } from 'discord.js';
import { detailContainer, isListingCard, IS_COMPONENTS_V2, listingContainer, packMessages } from './components-v2';
import { feedbackButtons, type Button, type Card, type DataTable, type OutMessage } from '../../core/surface';
import { textSpans, withoutSpanMarks } from '../../core/text/untrusted';
import { restoreMentions } from '../mention-token';

export const MAX_CONTENT = 2000;
/** Shown after the text while an answer streams; dropped when it would not fit. */
export const TYPING_MARK = ' \u258d';

const EMBED = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
  perMessage: 10,
};

export interface ApiButton {
  type: 2;
  style: 1 | 2 | 4;
  label: string;
  custom_id: string;
}

export interface ApiRow {
  type: 1;
  components: ApiButton[];
}

export interface ApiEmbed {
  title?: string;
  description?: string;
  url?: string;
  image?: { url: string };
  footer?: { text: string };
  fields?: Array<{ name: string; value: string; inline?: boolean }>;
  color?: number;
}

export interface MessageBody {
  content: string;
  embeds: ApiEmbed[];
  /** Button rows; with IS_COMPONENTS_V2 in `flags`, the message's whole layout (no content, no embeds). */
  components: Array<ApiRow | APIMessageTopLevelComponent>;
  /** Forced to `{ parse: [], users }` on every send (`sendableMentions`): only the bridge's own mentions ping. */
  allowed_mentions: AllowedMentions;
  attachments?: Array<{ id: number; filename: string }>;
  /** SUPPRESS_EMBEDS when a link came from untrusted text and the message has no embeds of its own. */
  flags?: number;
}

export interface AllowedMentions {
  parse: Array<'users' | 'roles' | 'everyone'>;
  users?: string[];
  /** Only the roles of HANDOFF_ESCALATE, when the bridge escalates a ticket. */
  roles?: string[];
}

/**
 * What every message create or edit carries: nothing parsed from the text (a user's, the service's
 * or a listing's `@everyone` or `<@id>` pings nobody), only the users the bridge itself mentioned.
 */
export function sendableMentions(body: Partial<Pick<MessageBody, 'allowed_mentions'>>): {
  parse: [];
  users: string[];
  roles?: string[];
} {
  const roles = [...new Set(body.allowed_mentions?.roles ?? [])].slice(0, 100);
  return {
    parse: [],
    users: [...new Set(body.allowed_mentions?.users ?? [])].slice(0, 100),
    ...(roles.length > 0 ? { roles } : {}),
  };
}

export interface RenderedMessage {
  body: MessageBody;
  files: RawFile[];
  /**
   * Messages that follow this one (Components V2 beyond one message's 40 components or 4,000
   * characters; an answer's listing cards), posted after it whenever it is sent.
   */
  more?: MessageBody[];
}

/** Resolves a core button to a custom id of at most 100 characters (long values go to the store). */
export type ButtonIdFn = (button: Button) => Promise<string>;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

/** Discord's message flag that keeps link previews off a message. */
const SUPPRESS_EMBEDS = 1 << 2;
/** A URL as Discord auto-links it (it stops at a space, `<`, `>` and, here, a `)` that may close Markdown). */
const URL = /https?:\/\/[^\s<>)]{1,2000}/g;

/** Markdown's link brackets (and the backslash) escaped: `[label](url)` shows as those characters. */
function noLinkSyntax(text: string): string {
  return text.replace(/[\\[\]]/g, '\\$&');
}

/**
 * Untrusted words as Discord content: Markdown's link brackets (and the backslash) escaped, so
 * `[label](url)` shows as those characters, and every URL in `<...>`, so it shows without a preview.
 */
function inertText(text: string): string {
  return noLinkSyntax(text).replace(URL, (url, at: number, all: string) =>
    all[at - 1] === '<' && all[at + url.length] === '>' ? url : `<${url}>`,
  );
}

/**
 * Core's text with its untrusted spans made inert; whether one of them held a link. Discord reads
 * Markdown in every message, so a message core did not write as Markdown (a notice naming someone,
 * the service's refusal in its own words, a setting's value) is inert as a whole.
 */
function shownText(msg: OutMessage): { text: string; userLinks: boolean } {
  let userLinks = false;
  const spans = msg.markdown ? textSpans(msg.text) : [{ text: withoutSpanMarks(msg.text), untrusted: true }];
  const out = spans
    .map((span) => {
      if (!span.untrusted) return span.text;
      if (/https?:\/\//.test(span.text)) userLinks = true;
      return inertText(span.text);
    })
    .join('');
  return { text: out, userLinks };
}

/**
 * A table of the text's own figures (/analytics): its caption, then a code block of its rows, one
 * "Figure: value" line each (a code block shows every character as typed; a backtick could end it).
 */
function figuresContent(t: DataTable): string {
  const typed = (s: string) => s.replace(/`/g, "'");
  const lines = t.rows.map((r) => `${typed(r[0] ?? '')}: ${typed(r.slice(1).join(' '))}`);
  return cut(`${inertText(t.caption)}\n\`\`\`\n${lines.join('\n')}\n\`\`\``, MAX_CONTENT);
}

/** The message content: the text exactly, plus the typing mark while streaming when it fits. */
export function contentOf(msg: OutMessage): string {
  const shown = shownText(msg).text;
  const text = shown.length > MAX_CONTENT ? shown.slice(0, MAX_CONTENT) : shown;
  if (msg.typing && text.length + TYPING_MARK.length <= MAX_CONTENT)
    return text === '' ? TYPING_MARK.trim() : `${text}${TYPING_MARK}`;
  return text;
}

export function cardEmbed(card: Card): ApiEmbed {
  const embed: ApiEmbed = { title: cut(card.title || 'Listing', EMBED.title) };
  // A listing's words are untrusted: embeds render masked links in descriptions and field values.
  if (card.badge) embed.description = `**${noLinkSyntax(card.badge)}**`;
  if (card.url && /^https?:\/\//.test(card.url)) embed.url = card.url;
  if (card.imageUrl && /^https?:\/\//.test(card.imageUrl)) embed.image = { url: card.imageUrl };
  const fields = card.fields
    .filter((f) => f.label.trim() !== '' && f.value.trim() !== '')
    .slice(0, EMBED.fields)
    .map((f) => ({
      name: cut(f.label, EMBED.fieldName),
      value: cut(noLinkSyntax(f.value), EMBED.fieldValue),
      inline: f.value.length <= 40,
    }));
  if (fields.length > 0) embed.fields = fields;
  if (card.footer) embed.footer = { text: cut(card.footer, EMBED.footer) };
  return embed;
}

function embedSize(e: ApiEmbed): number {
  return (
    (e.title?.length ?? 0) +
    (e.description?.length ?? 0) +
    (e.footer?.text.length ?? 0) +
    (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0)
  );
}

/** Keeps embeds within Discord's per-message count and total size (later cards are dropped). */
export function fitEmbeds(embeds: ApiEmbed[]): ApiEmbed[] {
  const out: ApiEmbed[] = [];
  let total = 0;
  for (const e of embeds.slice(0, EMBED.perMessage)) {
    const size = embedSize(e);
    if (total + size > EMBED.total) break;
    total += size;
    out.push(e);
  }
  return out;
}

const STYLE = { primary: 1, danger: 4 } as const;

export async function buttonRows(buttons: Button[], idOf: ButtonIdFn): Promise<ApiRow[]> {
  const rows: ApiRow[] = [];
  for (const b of buttons.slice(0, 25)) {
    if (rows.length === 0 || rows[rows.length - 1]!.components.length >= 5) rows.push({ type: 1, components: [] });
    rows[rows.length - 1]!.components.push({
      type: 2,
      style: b.style ? STYLE[b.style] : 2,
      label: cut(b.label || 'Open', 80),
      custom_id: await idOf(b),
    });
  }
  return rows;
}

/** A body as the REST API takes it: a Components V2 one without content and embeds (Discord refuses them). */
export function restBody(body: MessageBody): Partial<MessageBody> {
  const out: Partial<MessageBody> = { ...body, allowed_mentions: sendableMentions(body) };
  if (((body.flags ?? 0) & IS_COMPONENTS_V2) !== 0) {
    delete out.content;
    delete out.embeds;
  }
  return out;
}

/**
 * A classic body for a message already sent as Components V2 (Discord keeps the flag for good): its
 * content and embeds' words become text displays above its buttons.
 */
export function asComponentsV2(body: MessageBody): MessageBody {
  if (((body.flags ?? 0) & IS_COMPONENTS_V2) !== 0) return body;
  const texts = [
    body.content === '\u200b' ? '' : body.content,
    ...body.embeds.map((x) =>
      [
        x.title ? `**${x.title}**` : '',
        x.description ?? '',
        ...(x.fields ?? []).map((f) => `**${f.name}:** ${f.value}`),
      ]
        .filter((t) => t !== '')
        .join('\n'),
    ),
  ].filter((t) => t.trim() !== '');
  const head = texts.map((t) => new TextDisplayBuilder().setContent(cut(t, 4_000)).toJSON());
  return {
    ...v2Body([...head, ...(body.components as APIMessageTopLevelComponent[])], []),
    allowed_mentions: body.allowed_mentions,
  };
}

/** A body of Components V2 (the flag set; text lives in text displays). */
function v2Body(components: APIMessageTopLevelComponent[], users: string[]): MessageBody {
  return { content: '', embeds: [], components, allowed_mentions: { parse: [], users }, flags: IS_COMPONENTS_V2 };
}

/**
 * Listings as Components V2: a command's reply becomes V2 whole (its text a text display, then a
 * container per listing, then its buttons); an answer keeps its text as it is and its listings
 * follow in V2 messages of their own, sent with its final edit.
 */
async function renderListings(msg: OutMessage, idOf: ButtonIdFn): Promise<RenderedMessage> {
  const cards = msg.cards ?? [];
  const containers = (
    await Promise.all(
      cards.map((c) =>
        c.groups ? Promise.resolve(detailContainer(c, inertText)) : listingContainer(c, idOf, inertText),
      ),
    )
  ).map((c) => c.toJSON());
  if (msg.markdown) {
    const answer = await renderMessage({ ...msg, cards: [] }, idOf);
    return { ...answer, more: packMessages([], containers, []).map((cs) => v2Body(cs, [])) };
  }
  const restored = restoreMentions(contentOf(msg), (id, group) => (group ? `<@&${id}>` : `<@${id}>`));
  const head: APIMessageTopLevelComponent[] = [];
  if (restored.text.trim() !== '') head.push(new TextDisplayBuilder().setContent(restored.text).toJSON());
  if (msg.notice) head.push(new TextDisplayBuilder().setContent(cut(msg.notice, 2_000)).toJSON());
  const tail = (await buttonRows(
    [...(msg.buttons ?? []), ...(msg.feedback ? feedbackButtons(msg.feedback) : [])],
    idOf,
  )) as unknown as APIMessageTopLevelComponent[];
  const [first, ...rest] = packMessages(head, containers, tail).map((cs, i) =>
    v2Body(cs, i === 0 ? restored.users : []),
  );
  return { body: first!, files: [], ...(rest.length > 0 ? { more: rest } : {}) };
}

export async function renderMessage(msg: OutMessage, idOf: ButtonIdFn): Promise<RenderedMessage> {
  if (msg.cards && msg.cards.length > 0 && msg.cards.every(isListingCard) && !msg.file)
    return renderListings(msg, idOf);
  const embeds = fitEmbeds([
    ...(msg.cards ?? []).map(cardEmbed),
    ...(msg.notice ? [{ description: cut(msg.notice, EMBED.description) }] : []),
  ]);
  // Rating an answer: 👍 and 👎 after the message's own buttons.
  const components = await buttonRows(
    [...(msg.buttons ?? []), ...(msg.feedback ? feedbackButtons(msg.feedback) : [])],
    idOf,
  );
  // The bridge's own mentions (port.mention tokens) become real ones, listed so they ping.
  const words = msg.table?.sameAsText ? figuresContent(msg.table) : contentOf(msg);
  const restored = restoreMentions(words, (id, group) => (group ? `<@&${id}>` : `<@${id}>`));
  let content = restored.text;
  // Discord refuses a message with nothing in it; a zero-width space keeps the slot visible.
  if (content === '' && embeds.length === 0 && components.length === 0 && !msg.file) content = '\u200b';
  const body: MessageBody = {
    content,
    embeds,
    components,
    allowed_mentions: {
      parse: [],
      users: restored.users,
      ...(restored.groups.length > 0 ? { roles: restored.groups } : {}),
    },
  };
  // A link a user wrote gets no preview under the bot's name (the bridge's own cards keep theirs).
  if (embeds.length === 0 && shownText(msg).userLinks) body.flags = SUPPRESS_EMBEDS;
  const files: RawFile[] = [];
  if (msg.file) {
    files.push({ name: msg.file.name, data: msg.file.data, contentType: msg.file.mime });
    body.attachments = [{ id: 0, filename: msg.file.name }];
  }
  return { body, files };
}
