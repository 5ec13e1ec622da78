/**
 * One chunk of a core form as a Discord modal, and its submit back as values. Every field is a
 * Label (type 18) around its control, as Discord now asks of modals (a text input in an action row
 * is deprecated): a field with a fixed set of values (`select`, `boolean`: a listing's sale type,
 * status, area unit, property type) a string select (type 3) of them, a `choice` a radio group (type
 * 21: every option in sight, e.g. a rating 1 to 5), a `channel` field a channel select (type 8) of
 * the server's text and announcement channels, anything else a text input. A modal holds at most 5 top-level components, so 5 fields: the
 * chunks of forms.ts are cut to that. The submit is read from what discord.js hands over and checked
 * with zod, like every shape that comes from Discord.
 */
import {
  ChannelSelectMenuBuilder,
  RadioGroupBuilder,
  StringSelectMenuBuilder,
  ChannelType,
  ComponentType,
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
} from 'discord.js';
import { z } from 'zod';
import type { FormField } from '../../core/surface';
import { formIds } from './custom-ids';
import { cut, type FormSession } from './forms';

/** The channels a channel field offers: where the bridge can post a ticket and start its thread. */
const PICKABLE_CHANNEL_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement] as const;

export type ModalBody = APIModalInteractionResponseCallbackData;

const squash = (s: string): string => s.toLowerCase().replace(/[\s_-]+/g, '');

/** What a modal input shows for a value: an option's words rather than its wire value. */
export function shownValue(f: FormField, value: string): string {
  return f.options?.find((o) => o.value === value)?.label ?? value;
}

/** A typed value back to what the form takes: an option named by its words or its value; else as typed. */
export function typedValue(f: FormField, text: string): string {
  const want = squash(text);
  return f.options?.find((o) => squash(o.label) === want || squash(o.value) === want)?.value ?? text;
}

function placeholderOf(f: FormField): string | undefined {
  // The options are typed, so they are named in words ("For sale"), never as the wire values the
  // service takes ("for_sale").
  if (f.options && f.options.length > 0) return cut(`One of: ${f.options.map((o) => o.label).join(' | ')}`, 100);
  if (f.kind === 'boolean') return 'yes or no';
  if (f.hint) return cut(f.hint, 100);
  if (f.kind === 'number') return 'a number';
  return undefined;
}

/**
 * A channel field: nothing is pre-selected and an empty select keeps the value the form holds (the
 * current channel, or none: the deployment's default), so leaving it alone changes nothing. Not
 * pre-selecting (`default_values`) keeps a deleted or hidden current channel from breaking the modal.
 */
function channelLabel(f: FormField, held: string | undefined): LabelBuilder {
  const select = new ChannelSelectMenuBuilder()
    .setCustomId(f.name)
    .setChannelTypes(...PICKABLE_CHANNEL_TYPES)
    .setPlaceholder(held ? 'Keep the current channel' : 'Pick a channel')
    .setMaxValues(1)
    .setRequired(f.required);
  if (!f.required) select.setMinValues(0);
  const label = new LabelBuilder().setLabel(cut(f.label || f.name, 45)).setChannelSelectMenuComponent(select);
  if (f.hint) label.setDescription(cut(f.hint, 100));
  return label;
}

/** Discord's most options in a string select; a longer list stays typed text. */
const MAX_SELECT_OPTIONS = 25;
/** A radio group holds 2 to 10 options. */
const RADIO_OPTIONS = { least: 2, most: 10 };

/** The options a field offers, its held value among them even when the list lacks it (kept as it is). */
function offered(f: FormField, held: string | undefined): Array<{ value: string; label: string }> {
  const options =
    f.options && f.options.length > 0
      ? f.options
      : f.kind === 'boolean'
        ? [
            { value: 'yes', label: 'Yes' },
            { value: 'no', label: 'No' },
          ]
        : [];
  if (held && !options.some((o) => o.value === held)) return [...options, { value: held, label: held }];
  return options;
}

/** Whether the field is a pick from its options on Discord (a select or a radio group). */
export function pickedField(f: FormField): 'select' | 'radio' | undefined {
  if (f.kind === 'choice') return 'radio';
  if (f.kind !== 'select' && f.kind !== 'boolean') return undefined;
  return offered(f, undefined).length <= MAX_SELECT_OPTIONS - 1 ? 'select' : undefined;
}

function selectLabel(f: FormField, held: string | undefined): LabelBuilder {
  const select = new StringSelectMenuBuilder()
    .setCustomId(f.name)
    .setPlaceholder(f.required ? 'Pick one' : 'Pick one (or leave empty)')
    .setMaxValues(1)
    .setRequired(f.required)
    .addOptions(
      offered(f, held)
        .slice(0, MAX_SELECT_OPTIONS)
        .map((o) => ({ label: cut(o.label, 100), value: o.value.slice(0, 100), default: o.value === held })),
    );
  if (!f.required) select.setMinValues(0);
  const label = new LabelBuilder().setLabel(cut(f.label || f.name, 45)).setStringSelectMenuComponent(select);
  if (f.hint) label.setDescription(cut(f.hint, 100));
  return label;
}

function radioLabel(f: FormField, held: string | undefined): LabelBuilder {
  const options = offered(f, held).slice(0, RADIO_OPTIONS.most);
  const group = new RadioGroupBuilder()
    .setCustomId(f.name)
    .setRequired(f.required)
    .addOptions(
      ...options.map((o) => ({ label: cut(o.label, 100), value: o.value.slice(0, 100), default: o.value === held })),
    );
  const label = new LabelBuilder().setLabel(cut(f.label || f.name, 45)).setRadioGroupComponent(group);
  if (f.hint) label.setDescription(cut(f.hint, 100));
  return label;
}

/** The field's control in its Label. */
function labelOf(f: FormField, held: string | undefined): LabelBuilder {
  if (f.kind === 'channel') return channelLabel(f, held);
  const picked = pickedField(f);
  if (picked === 'radio' && offered(f, held).length >= RADIO_OPTIONS.least) return radioLabel(f, held);
  if (picked === 'select') return selectLabel(f, held);
  return textLabel(f, held);
}

function textLabel(f: FormField, held: string | undefined): LabelBuilder {
  const input = new TextInputBuilder()
    .setCustomId(f.name)
    .setStyle(f.kind === 'textarea' ? TextInputStyle.Paragraph : TextInputStyle.Short)
    .setRequired(f.required)
    .setMaxLength(4000);
  if (held !== undefined && held !== '') input.setValue(shownValue(f, held).slice(0, 4000));
  const placeholder = placeholderOf(f);
  if (placeholder) input.setPlaceholder(placeholder);
  return new LabelBuilder().setLabel(cut(f.label || f.name, 45)).setTextInputComponent(input);
}

/** The modal of one chunk, pre-filled with what the user typed so far (or the form's initial values). */
export function modalOf(key: string, session: FormSession, chunk: number, submitOnClose: boolean): ModalBody {
  const part = session.chunks[chunk] ?? session.chunks[0]!;
  const fields = part.names
    .map((n) => session.fields.find((f) => f.name === n))
    .filter((f): f is FormField => f !== undefined);
  const title = session.chunks.length > 1 ? `${session.title}: ${part.label}` : session.title;
  return new ModalBuilder()
    .setCustomId(formIds.modal(key, chunk, submitOnClose))
    .setTitle(cut(title, 45))
    .addLabelComponents(fields.map((f) => labelOf(f, session.values[f.name])))
    .toJSON();
}

const snowflake = z.string().regex(/^\d{1,20}$/);
const textInput = z.object({ type: z.literal(ComponentType.TextInput), customId: z.string(), value: z.string() });
/** Discord resolves each picked channel (`resolved.channels`); discord.js hands them over by id. */
const pickedChannel = z.object({
  id: snowflake,
  type: z.union([z.literal(ChannelType.GuildText), z.literal(ChannelType.GuildAnnouncement)]),
});
const channelSelect = z.object({
  type: z.literal(ComponentType.ChannelSelect),
  customId: z.string(),
  values: z.array(snowflake).max(1),
  channels: z.instanceof(Map).optional(),
});
const stringSelect = z.object({
  type: z.literal(ComponentType.StringSelect),
  customId: z.string(),
  values: z.array(z.string()).max(1),
});
const radioGroup = z.object({
  type: z.literal(ComponentType.RadioGroup),
  customId: z.string(),
  value: z.string().nullable(),
});
const control = z.object({ type: z.number() }).passthrough();
const topLevel = z.union([
  z.object({ type: z.literal(ComponentType.Label), component: control }),
  z.object({ type: z.literal(ComponentType.ActionRow), components: z.array(control) }),
  z.object({ type: z.literal(ComponentType.TextDisplay) }),
]);

/**
 * A modal submit's answers: each text input's text, each channel select's picked channel (or none),
 * each string select's or radio group's picked value ('' for none).
 */
export interface Submitted {
  texts: Record<string, string>;
  channels: Record<string, string | undefined>;
  picks: Record<string, string>;
}

/** Discord's submit as discord.js reads it (`ModalSubmitInteraction.components`); an error names the path. */
export function submittedValues(components: unknown): { ok: true; values: Submitted } | { ok: false; why: string } {
  const top = z.array(topLevel).max(5).safeParse(components);
  if (!top.success) return { ok: false, why: issueOf(top.error) };
  const values: Submitted = { texts: {}, channels: {}, picks: {} };
  const controls = top.data.flatMap((c) => ('component' in c ? [c.component] : 'components' in c ? c.components : []));
  for (const c of controls) {
    if (c.type === ComponentType.TextInput) {
      const text = textInput.safeParse(c);
      if (!text.success) return { ok: false, why: issueOf(text.error) };
      values.texts[text.data.customId] = text.data.value;
    } else if (c.type === ComponentType.ChannelSelect) {
      const select = channelSelect.safeParse(c);
      if (!select.success) return { ok: false, why: issueOf(select.error) };
      const id = select.data.values[0];
      const resolved = pickedChannel.safeParse(id === undefined ? undefined : select.data.channels?.get(id));
      if (id !== undefined && !resolved.success) return { ok: false, why: `channel ${id}: ${issueOf(resolved.error)}` };
      values.channels[select.data.customId] = id;
    } else if (c.type === ComponentType.StringSelect) {
      const select = stringSelect.safeParse(c);
      if (!select.success) return { ok: false, why: issueOf(select.error) };
      values.picks[select.data.customId] = select.data.values[0] ?? '';
    } else if (c.type === ComponentType.RadioGroup) {
      const radio = radioGroup.safeParse(c);
      if (!radio.success) return { ok: false, why: issueOf(radio.error) };
      values.picks[radio.data.customId] = radio.data.value ?? '';
    }
  }
  return { ok: true, values };
}

/** Where a shape failed and how (never the value: a text input may hold a key). */
function issueOf(err: z.ZodError): string {
  const first = err.issues[0];
  return first ? `${first.path.join('.') || '(top)'}: ${first.code}` : 'invalid';
}
