/**
 * One chunk of a core form as a Discord modal, and its submit back as values. Every field is a
 * Label (type 18) around its control, as Discord now asks of modals (a text input in an action row
 * is deprecated): a text input, or for a `channel` field a channel select (type 8) of the server's
 * text and announcement channels. A modal holds at most 5 top-level components, so 5 fields: the
 * chunks of forms.ts are cut to that. The submit is read from what discord.js hands over and checked
 * with zod, like every shape that comes from Discord.
 */
import {
  ChannelSelectMenuBuilder,
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
    .addLabelComponents(
      fields.map((f) =>
        f.kind === 'channel' ? channelLabel(f, session.values[f.name]) : textLabel(f, session.values[f.name]),
      ),
    )
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
const control = z.object({ type: z.number() }).passthrough();
const topLevel = z.union([
  z.object({ type: z.literal(ComponentType.Label), component: control }),
  z.object({ type: z.literal(ComponentType.ActionRow), components: z.array(control) }),
  z.object({ type: z.literal(ComponentType.TextDisplay) }),
]);

/** A modal submit's answers: each text input's text, each channel select's picked channel (or none). */
export interface Submitted {
  texts: Record<string, string>;
  channels: Record<string, string | undefined>;
}

/** Discord's submit as discord.js reads it (`ModalSubmitInteraction.components`); an error names the path. */
export function submittedValues(components: unknown): { ok: true; values: Submitted } | { ok: false; why: string } {
  const top = z.array(topLevel).max(5).safeParse(components);
  if (!top.success) return { ok: false, why: issueOf(top.error) };
  const values: Submitted = { texts: {}, channels: {} };
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
    }
  }
  return { ok: true, values };
}

/** Where a shape failed and how (never the value: a text input may hold a key). */
function issueOf(err: z.ZodError): string {
  const first = err.issues[0];
  return first ? `${first.path.join('.') || '(top)'}: ${first.code}` : 'invalid';
}
