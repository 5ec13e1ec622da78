/**
 * Core's messages and forms as Block Kit, within Slack's documented limits (section text 3,000,
 * 50 blocks per message, 100 per modal, button text 75, value 2,000, 10 fields per section).
 */
import type { Button, Card, FeedbackPrompt, FormField, FormSpec, OutMessage } from '../../core/surface';
import type { RespondArguments, types, ViewOutput } from '@slack/bolt';
import { cardBlock, carousels, detailBlocks, isCompact } from './card-blocks';
import { forResponseUrl } from './image-retry';
import { buttonValueSchema, type FormMetadata } from './payloads';
import { chunkMrkdwn, escapeMrkdwn, markdownToMrkdwn } from './mrkdwn';
import { withoutSpanMarks } from '../../core/text/untrusted';
import { slackLink, slackMarkdownText, slackText, withMentions } from './safe-text';
import { CARDS_BESIDE_TABLE, dataTableBlock } from './table-blocks';
import { chartBlock } from './chart-blocks';

export const SLACK_LIMITS = {
  text: 40_000,
  sectionText: 3_000,
  blocksPerMessage: 50,
  blocksPerModal: 100,
  buttonsPerActions: 25,
  buttonText: 75,
  buttonValue: 2_000,
  fieldsPerSection: 10,
  fieldText: 2_000,
  plainTitle: 24,
  label: 2_000,
  option: 75,
  optionValue: 150,
  optionsPerSelect: 100,
  privateMetadata: 3_000,
  headerText: 150,
  imageAltText: 2_000,
  imageUrl: 3_000,
} as const;

/** action_id prefix of every button the bridge renders (Bolt routes on it). */
export const ACTION_PREFIX = 'bridge:';
/** callback_id prefix of every modal the bridge opens. */
export const VIEW_PREFIX = 'bridge_form:';
/** Shown after the streamed text while the answer is still coming (blocks only, never `text`). */
export const TYPING_MARK = ' ▍';
/** The one action_id inside each form input block. */
export const INPUT_ACTION_ID = 'v';

export type Block = Record<string, unknown>;

export interface RenderedMessage {
  text: string;
  blocks: Block[];
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function plain(text: string, max: number): { type: 'plain_text'; text: string; emoji: true } {
  return { type: 'plain_text', text: clip(text.length > 0 ? text : ' ', max), emoji: true };
}

function textSections(msg: OutMessage, room: number): Block[] {
  const source = withMentions(msg.markdown ? markdownToMrkdwn(msg.text) : escapeMrkdwn(withoutSpanMarks(msg.text)));
  const shown = msg.typing ? `${source}${TYPING_MARK}` : source;
  if (shown.trim().length === 0) return [];
  return chunkMrkdwn(shown, SLACK_LIMITS.sectionText)
    .filter((part) => part.trim().length > 0)
    .slice(0, Math.max(1, room))
    .map((part) => ({ type: 'section', text: { type: 'mrkdwn', text: part } }));
}

function cardBlocks(card: Card): Block[] {
  const linked = `*${slackLink(card.url, card.title)}*`;
  const title = card.badge ? `${linked}   \`${escapeMrkdwn(card.badge)}\`` : linked;
  const section: Block = { type: 'section', text: { type: 'mrkdwn', text: clip(title, SLACK_LIMITS.sectionText) } };
  const all = card.fields
    .filter((f) => f.value.length > 0)
    .map((f) => ({
      type: 'mrkdwn',
      text: clip(`*${escapeMrkdwn(f.label)}*\n${escapeMrkdwn(f.value)}`, SLACK_LIMITS.fieldText),
    }));
  const fields = all.slice(0, SLACK_LIMITS.fieldsPerSection);
  if (fields.length > 0) section.fields = fields;
  // More than a section holds (a listing's details): the rest in sections of their own.
  const more: Block[] = [];
  for (let i = SLACK_LIMITS.fieldsPerSection; i < all.length && more.length < 3; i += SLACK_LIMITS.fieldsPerSection) {
    more.push({ type: 'section', fields: all.slice(i, i + SLACK_LIMITS.fieldsPerSection) });
  }
  const out: Block[] = [section, ...more];
  if (card.footer)
    out.push({ type: 'context', elements: [{ type: 'mrkdwn', text: clip(escapeMrkdwn(card.footer), 2000) }] });
  // The photo as an image block under the card's text, never a section's accessory: Slack shows an
  // accessory it cannot fetch as a broken icon, while it refuses a message whose image block it
  // cannot fetch ("downloading image failed"), which image-retry.ts answers by sending the message
  // again without that photo. alt_text is plain text, never parsed; still, no control character of
  // Slack's leaves the bridge. A URL Slack would refuse outright (not http(s), too long) is not shown
  // (the detailed card still lists it among its fields).
  if (card.imageUrl && /^https?:\/\//i.test(card.imageUrl) && card.imageUrl.length <= SLACK_LIMITS.imageUrl)
    out.push({
      type: 'image',
      image_url: card.imageUrl,
      alt_text: clip(`Photo of ${card.title.replace(/[<>]/g, '')}`, SLACK_LIMITS.imageAltText),
    });
  return out;
}

/** A button's value: core's action and value, routed back by `parseButtonValue`. */
export function buttonValue(b: Button): string {
  // Slack never shows a value, but no `<`, `>` or `&` of untrusted text leaves the bridge raw: JSON
  // unicode escapes, which JSON.parse restores.
  return JSON.stringify({ a: b.action, v: b.value })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

/** Core's action and value from a clicked button (its value, else its action_id). */
export function buttonValueFromAction(
  actionId: string,
  value: string | undefined,
): { a: string; v: string } | undefined {
  if (value !== undefined) {
    try {
      const parsed = buttonValueSchema.safeParse(JSON.parse(value));
      if (parsed.success) return parsed.data;
    } catch {
      // not ours: fall through to the action_id
    }
  }
  const m = /^bridge:(.+):\d+$/.exec(actionId);
  return m ? { a: m[1]!, v: value ?? '' } : undefined;
}

/** One button; `index` keeps its action_id unique in the message. */
function buttonElement(b: Button, index: number): types.Button {
  const el: types.Button = {
    type: 'button',
    action_id: `${ACTION_PREFIX}${clip(b.action, 200)}:${index}`,
    text: plain(b.label, SLACK_LIMITS.buttonText),
    value: buttonValue(b).slice(0, SLACK_LIMITS.buttonValue),
  };
  if (b.style) el.style = b.style;
  return el;
}

function actionsBlocks(buttons: Button[]): Block[] {
  const out: Block[] = [];
  for (let i = 0; i < buttons.length; i += SLACK_LIMITS.buttonsPerActions) {
    out.push({
      type: 'actions',
      elements: buttons.slice(i, i + SLACK_LIMITS.buttonsPerActions).map((b, j) => buttonElement(b, i + j)),
    });
  }
  return out;
}

/**
 * How a message's cards are shown: `carousel` (compact cards as Slack's card blocks, sideways) or
 * `sections` (the older section and image blocks, for a workspace that refuses cards).
 */
export type CardLayout = 'carousel' | 'sections';

/** Compact cards as carousels (their buttons numbered after the message's own); others as sections. */
function cardsBlocks(cards: Card[], layout: CardLayout): Block[] {
  if (layout === 'carousel' && cards.length > 0 && cards.every(isCompact)) {
    const blocks = cards.map((card, i) =>
      cardBlock(
        card,
        (card.actions ?? []).map((b, j) => buttonElement(b, 1000 + i * 10 + j)),
      ),
    );
    return carousels(blocks) as unknown as Block[];
  }
  // Today's sections (a page of ten stays within 50 blocks without the cards' own buttons).
  const out: Block[] = [];
  cards.forEach((card, i) => {
    if (i > 0) out.push({ type: 'divider' });
    out.push(...(card.groups ? detailBlocks(card) : cardBlocks(card)));
  });
  return out;
}

/**
 * The message `text` Slack stores, naming every card the text does not already name: notifications
 * and screen readers read it, not the cards. An answer's text stays exactly the service's: its cards
 * are the listings it names (over all its messages).
 */
function textNamingCards(msg: OutMessage): string {
  if (msg.markdown) return msg.text;
  const missing = (msg.cards ?? []).filter((c) => !msg.text.includes(c.title)).map((c) => `• ${c.title}`);
  return missing.length === 0 ? msg.text : [msg.text, ...missing].filter((l) => l !== '').join('\n');
}

/** Slack's own rating control for AI answers: a context_actions block with feedback_buttons. */
function feedbackBlock(f: FeedbackPrompt): Block {
  const side = (value: string, label: string, a11y: string): Block => ({
    text: plain(label, SLACK_LIMITS.buttonText),
    accessibility_label: a11y,
    value: buttonValue({ action: f.action, label, value }).slice(0, SLACK_LIMITS.buttonValue),
  });
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: `${ACTION_PREFIX}${clip(f.action, 200)}:fb`,
        positive_button: side(f.positive, 'Good answer', 'This answer helped'),
        negative_button: side(f.negative, 'Bad answer', 'This answer did not help'),
      },
    ],
  };
}

/**
 * The plain `text` Slack stores: core's text escaped (Slack shows it word for word, and nothing in it
 * pings or links), with the bridge's own mentions real; capped at Slack's hard limit.
 */
function plainText(msg: OutMessage): string {
  if (msg.markdown && msg.asShown) return capped(withMentions(markdownToMrkdwn(msg.text)));
  return capped(slackText(msg.text));
}

/** The same text for Slack's Markdown field (`markdown_text` of a native stream): see slackMarkdownText. */
export function markdownText(msg: OutMessage): string {
  return capped(slackMarkdownText(msg.text));
}

function capped(text: string): string {
  if (text.length <= SLACK_LIMITS.text) return text;
  // Never end inside an entity or a mention (bounded: a mention is short).
  const cut = text.slice(0, SLACK_LIMITS.text);
  return cut.replace(/&[a-z]{0,3}$|<[^<>]{0,120}$/, '');
}

export function renderMessage(msg: OutMessage, layout: CardLayout = 'carousel'): RenderedMessage {
  const tail: Block[] = [];
  // A table has every item: beside it, the cards of the first few.
  const table = msg.table && msg.table.rows.length > 0 ? msg.table : undefined;
  if (table) tail.push(dataTableBlock(table));
  if (msg.chart && msg.chart.categories.length > 0) tail.push(chartBlock(msg.chart));
  const cards = msg.table && msg.cards ? msg.cards.slice(0, CARDS_BESIDE_TABLE) : msg.cards;
  if (cards) tail.push(...cardsBlocks(cards, layout));
  if (msg.notice)
    tail.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: clip(withMentions(escapeMrkdwn(msg.notice)), 3000) }],
    });
  if (msg.buttons && msg.buttons.length > 0) tail.push(...actionsBlocks(msg.buttons));
  if (msg.feedback) tail.push(feedbackBlock(msg.feedback));
  const room = SLACK_LIMITS.blocksPerMessage - tail.length;
  // A table of the text's own figures stands in for the text (which stays the message's plain text).
  let blocks = [...(table?.sameAsText ? [] : textSections(msg, room)), ...tail];
  if (blocks.length === 0 && msg.typing) {
    blocks = [{ type: 'context', elements: [{ type: 'mrkdwn', text: ':hourglass_flowing_sand: Thinking…' }] }];
  }
  return {
    text: plainText(msg.cards ? { ...msg, text: textNamingCards(msg) } : msg),
    blocks: blocks.slice(0, SLACK_LIMITS.blocksPerMessage),
  };
}

/**
 * A rendered message as an ephemeral response_url body: added under the command or button, or
 * replacing the ephemeral message that carried the button. Without images: a response_url refusal
 * names no image to leave out (see image-retry.ts).
 */
export function ephemeralResponse(rendered: RenderedMessage, replaceOriginal: boolean): RespondArguments {
  return {
    response_type: 'ephemeral',
    replace_original: replaceOriginal,
    text: rendered.text,
    // Our blocks are plain JSON built to Slack's Block Kit; Bolt types them as a union per block kind.
    blocks: forResponseUrl(rendered.blocks) as never,
  };
}

function option(value: string, label: string): Block {
  return { text: plain(label, SLACK_LIMITS.option), value: value.slice(0, SLACK_LIMITS.optionValue) };
}

function fieldElement(f: FormField): Block {
  // A secret is never sent back to Slack in a view (the form opens empty for it).
  const initial = f.secret ? '' : (f.initial ?? '');
  switch (f.kind) {
    case 'channel': {
      const el: Block = {
        type: 'conversations_select',
        action_id: INPUT_ACTION_ID,
        filter: { include: ['public', 'private'], exclude_bot_users: true },
      };
      if (initial) el.initial_conversation = initial;
      return el;
    }
    case 'text':
    case 'textarea': {
      const el: Block = { type: 'plain_text_input', action_id: INPUT_ACTION_ID };
      if (f.kind === 'textarea') el.multiline = true;
      if (initial) el.initial_value = initial;
      return el;
    }
    case 'number': {
      const el: Block = { type: 'number_input', action_id: INPUT_ACTION_ID, is_decimal_allowed: true };
      if (initial && Number.isFinite(Number(initial))) el.initial_value = initial;
      return el;
    }
    case 'select':
    case 'choice':
    case 'boolean': {
      const opts =
        f.kind === 'boolean' && (!f.options || f.options.length === 0)
          ? [
              { value: 'true', label: 'Yes' },
              { value: 'false', label: 'No' },
            ]
          : (f.options ?? []);
      const options = opts.slice(0, SLACK_LIMITS.optionsPerSelect).map((o) => option(o.value, o.label));
      const el: Block = { type: 'static_select', action_id: INPUT_ACTION_ID, options };
      const init = opts.find((o) => o.value === initial);
      if (init) el.initial_option = option(init.value, init.label);
      return el;
    }
  }
}

export function renderForm(form: FormSpec, meta: FormMetadata): Block {
  const blocks: Block[] = [];
  const groups = [...new Set(form.fields.map((f) => f.group))];
  for (const group of groups) {
    if (groups.length > 1) blocks.push({ type: 'header', text: plain(group, SLACK_LIMITS.headerText) });
    for (const f of form.fields.filter((x) => x.group === group)) {
      const block: Block = {
        type: 'input',
        block_id: f.name,
        optional: !f.required,
        label: plain(f.label, SLACK_LIMITS.label),
        element: fieldElement(f),
      };
      if (f.hint) block.hint = plain(f.hint, 2000);
      // The hint as the empty input's placeholder too ("square feet, e.g. 1,850").
      if (f.hint && f.kind !== 'select' && f.kind !== 'choice' && f.kind !== 'boolean' && f.kind !== 'channel')
        (block.element as Block).placeholder = plain(f.hint, 150);
      blocks.push(block);
    }
  }
  return {
    type: 'modal',
    callback_id: `${VIEW_PREFIX}${form.id}`.slice(0, 255),
    title: plain(form.title, SLACK_LIMITS.plainTitle),
    submit: plain(form.submitLabel ?? 'Save', SLACK_LIMITS.plainTitle),
    close: plain('Cancel', SLACK_LIMITS.plainTitle),
    private_metadata: JSON.stringify(meta).slice(0, SLACK_LIMITS.privateMetadata),
    blocks: blocks.slice(0, SLACK_LIMITS.blocksPerModal),
  };
}

/** A submitted modal's inputs as core's `name -> string` values (empty inputs as ''). */
export function formValues(view: Pick<ViewOutput, 'state'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [blockId, actions] of Object.entries(view.state.values)) {
    const state = actions[INPUT_ACTION_ID] ?? Object.values(actions)[0];
    if (!state) continue;
    if (typeof state.value === 'string') out[blockId] = state.value;
    else if (typeof state.selected_conversation === 'string') out[blockId] = state.selected_conversation;
    else if (typeof state.selected_channel === 'string') out[blockId] = state.selected_channel;
    else if (state.selected_option) out[blockId] = state.selected_option.value;
    else if (state.selected_options) out[blockId] = state.selected_options.map((o) => o.value).join(',');
    else out[blockId] = '';
  }
  return out;
}
