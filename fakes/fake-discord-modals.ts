/**
 * The fake Discord's modals, by Discord's component reference: what a MODAL callback (type 9) may
 * carry, what a test sees of it, and the MODAL_SUBMIT interaction's data a user's answers make.
 *
 * A modal (`custom_id` 1 to 100, `title` 1 to 45) holds 1 to 5 top-level components: Labels (type
 * 18: `label` 1 to 45, `description` at most 100, one `component`: a text input without a label of
 * its own, a string, user, role, mentionable or channel select, a file upload (19), a radio group
 * (21), a checkbox group (22) or a checkbox (23)), text displays (10), or the deprecated action row
 * (1) holding one text input. File uploads, radio groups and checkboxes live only inside a Label.
 * A select in a modal may not be `disabled`; its `min_values` is at least 1 unless `required` is
 * false, at most `max_values` (1 to 25, and a string select's at most its options); a string select
 * has 1 to 25 options (label and value 1 to 100, description at most 100, values unique, no more
 * defaults than `max_values`), a placeholder of at most 150. A radio group has 2 to 10 options (the
 * same lengths, values unique, at most one default). A file upload takes 0 to 10 files (`min_values`
 * 0 to 10, `max_values` 1 to 10, at least 1 unless not required), at most 10 `file_types`. A text
 * input's `value` is at most 4000, its `placeholder` 100, its lengths 0 to 4000. Every `custom_id` is
 * 1 to 100 characters and unique in the modal.
 *
 * The submit carries every input of the modal in the modal's own shape (`{type: 18, id, component:
 * {type, id, custom_id, value | values}}`, or a row's `components`), an input left alone carrying its
 * pre-filled value (a select its default options); the channels picked are in `resolved.channels` as
 * partial channels with the member's `permissions` there, the files uploaded in
 * `resolved.attachments`. The Discord client offers a channel select only the channels of the server
 * of `channel_types`, and submits nothing while a required input is empty: a test asking for
 * anything else is an error in the test.
 */
type Json = Record<string, unknown>;

export const T = {
  row: 1,
  stringSelect: 3,
  text: 4,
  channelSelect: 8,
  textDisplay: 10,
  label: 18,
  fileUpload: 19,
  radioGroup: 21,
  checkboxGroup: 22,
  checkbox: 23,
};
const SELECTS = new Set([3, 5, 6, 7, 8]);
/** What a Label may hold. */
const IN_LABEL = new Set([T.text, ...SELECTS, T.fileUpload, T.radioGroup, T.checkboxGroup, T.checkbox]);

const len = (v: unknown): number => (typeof v === 'string' ? [...v].length : 0);

/** [path, message] of the first thing Discord would refuse in a modal callback's data; undefined: none. */
export function modalProblem(data: Json | undefined): [string, string] | undefined {
  const top = (data?.components as Json[] | undefined) ?? [];
  const customId = String(data?.custom_id ?? '');
  if (customId.length < 1 || customId.length > 100) return ['data.custom_id', 'Must be between 1 and 100 in length.'];
  if (len(data?.title) < 1 || len(data?.title) > 45) return ['data.title', 'Must be between 1 and 45 in length.'];
  if (top.length < 1 || top.length > 5) return ['data.components', 'Must be between 1 and 5 in length.'];
  const ids = new Set<string>();
  for (const [i, c] of top.entries()) {
    const path = `data.components.${i}`;
    let inputs: Json[];
    if (c.type === T.textDisplay) {
      if (len(c.content) < 1 || len(c.content) > 4000)
        return [`${path}.content`, 'Must be between 1 and 4000 in length.'];
      continue;
    }
    if (c.type === T.row) {
      inputs = (c.components as Json[] | undefined) ?? [];
      if (inputs.length !== 1 || inputs[0]!.type !== T.text)
        return [`${path}.components`, 'A modal action row holds one text input.'];
      if (len(inputs[0]!.label) < 1 || len(inputs[0]!.label) > 45)
        return [`${path}.components.0.label`, 'Must be between 1 and 45 in length.'];
    } else if (c.type === T.label) {
      if (len(c.label) < 1 || len(c.label) > 45) return [`${path}.label`, 'Must be between 1 and 45 in length.'];
      if (len(c.description) > 100) return [`${path}.description`, 'Must be 100 or fewer in length.'];
      if (c.components !== undefined) return [`${path}.components`, 'A label holds one `component`.'];
      const inner = c.component as Json | undefined;
      if (!inner || !IN_LABEL.has(Number(inner.type)))
        return [
          `${path}.component.type`,
          'A label holds a text input, a select, a file upload, a radio group or checkboxes.',
        ];
      if (inner.type === T.text && inner.label !== undefined)
        return [`${path}.component.label`, 'A text input in a label has no label of its own.'];
      inputs = [inner];
    } else return [`${path}.type`, 'Not allowed in a modal.'];
    for (const input of inputs) {
      const p = inputProblem(input);
      if (p) return [`${path}.component.${p[0]}`, p[1]];
      const id = String(input.custom_id ?? '');
      if (ids.has(id)) return [`${path}.component.custom_id`, 'Component custom id cannot be duplicated'];
      ids.add(id);
    }
  }
  return undefined;
}

function inputProblem(c: Json): [string, string] | undefined {
  const id = String(c.custom_id ?? '');
  if (id.length < 1 || id.length > 100) return ['custom_id', 'Must be between 1 and 100 in length.'];
  if (c.disabled !== undefined) return ['disabled', 'Modals can not have disabled components.'];
  if (c.type === T.text) return textProblem(c);
  if (c.type === T.radioGroup) return optionsProblem(c, 2, 10, 1);
  if (c.type === T.fileUpload) {
    const min = c.min_values === undefined ? 1 : Number(c.min_values);
    const max = c.max_values === undefined ? 1 : Number(c.max_values);
    if (!Number.isInteger(min) || min < 0 || min > 10) return ['min_values', 'Must be between 0 and 10.'];
    if (!Number.isInteger(max) || max < 1 || max > 10) return ['max_values', 'Must be between 1 and 10.'];
    if (min > max) return ['min_values', 'Must be at most max_values.'];
    if (min < 1 && c.required !== false) return ['min_values', 'Must be at least 1 for a required file upload.'];
    if (c.file_types !== undefined && (!Array.isArray(c.file_types) || c.file_types.length > 10))
      return ['file_types', 'Must be an array of 10 or fewer file types.'];
    return undefined;
  }
  if (!SELECTS.has(Number(c.type))) return undefined;
  const min = c.min_values === undefined ? 1 : Number(c.min_values);
  const max = c.max_values === undefined ? 1 : Number(c.max_values);
  if (min < 0 || max < 1 || max > 25 || min > max) return ['min_values', 'Out of range.'];
  if (min < 1 && c.required !== false) return ['min_values', 'Must be at least 1 for a required select.'];
  if (len(c.placeholder) > 150) return ['placeholder', 'Must be 150 or fewer in length.'];
  if (c.type === T.stringSelect) {
    const options = (c.options as Json[] | undefined) ?? [];
    const p = optionsProblem(c, 1, 25, max);
    if (p) return p;
    if (max > options.length) return ['max_values', 'Must be at most the number of options.'];
    return undefined;
  }
  if (c.type === T.channelSelect && c.channel_types !== undefined && !Array.isArray(c.channel_types))
    return ['channel_types', 'Must be an array of channel types.'];
  return undefined;
}

function textProblem(c: Json): [string, string] | undefined {
  if (c.style !== 1 && c.style !== 2) return ['style', 'Value must be one of {1, 2}.'];
  if (len(c.value) > 4000) return ['value', 'Must be 4000 or fewer in length.'];
  if (len(c.placeholder) > 100) return ['placeholder', 'Must be 100 or fewer in length.'];
  for (const k of ['min_length', 'max_length'] as const)
    if (c[k] !== undefined && (Number(c[k]) < 0 || Number(c[k]) > 4000)) return [k, 'Must be between 0 and 4000.'];
  return undefined;
}

/** A string select's or a radio group's options: how many, their lengths, unique values, defaults. */
function optionsProblem(c: Json, least: number, most: number, maxDefaults: number): [string, string] | undefined {
  const options = (c.options as Json[] | undefined) ?? [];
  if (options.length < least || options.length > most)
    return ['options', `Must be between ${least} and ${most} in length.`];
  const values = new Set<string>();
  for (const [j, o] of options.entries()) {
    if (len(o.label) < 1 || len(o.label) > 100) return [`options.${j}.label`, 'Must be between 1 and 100 in length.'];
    if (len(o.value) < 1 || len(o.value) > 100) return [`options.${j}.value`, 'Must be between 1 and 100 in length.'];
    if (len(o.description) > 100) return [`options.${j}.description`, 'Must be 100 or fewer in length.'];
    if (values.has(String(o.value))) return [`options.${j}.value`, 'Option values must be unique.'];
    values.add(String(o.value));
  }
  if (options.filter((o) => o.default === true).length > maxDefaults)
    return ['options', `At most ${maxDefaults} option${maxDefaults === 1 ? '' : 's'} may be a default.`];
  return undefined;
}

/** One input of a modal as a test sees it: its control and what the label around it says. */
export interface ModalInput {
  /** 4 text input, 8 channel select, ... */
  type: number;
  custom_id: string;
  label: string;
  description?: string;
  value?: string;
  placeholder?: string;
  required?: boolean;
  channel_types?: number[];
  min_values?: number;
  max_values?: number;
  /** A string select's or a radio group's options. */
  options?: Array<{ label: string; value: string; description?: string; default?: boolean }>;
  file_types?: string[];
}

/** Every input of a modal, from Labels and (legacy) action rows alike. */
export function modalInputs(data: Json): ModalInput[] {
  const top = (data.components as Json[] | undefined) ?? [];
  return top.flatMap((c) => {
    const inner = c.type === T.label ? [c.component as Json] : ((c.components as Json[] | undefined) ?? []);
    return inner.map((x) => ({
      type: Number(x.type),
      custom_id: String(x.custom_id),
      label: String(c.type === T.label ? c.label : (x.label ?? '')),
      description: c.description as string | undefined,
      value: x.value as string | undefined,
      placeholder: x.placeholder as string | undefined,
      required: x.required as boolean | undefined,
      channel_types: x.channel_types as number[] | undefined,
      min_values: x.min_values as number | undefined,
      max_values: x.max_values as number | undefined,
      options: x.options as ModalInput['options'],
      file_types: x.file_types as string[] | undefined,
    }));
  });
}

/** A channel as the fake knows it, for the select's checks and its resolved data. */
export interface PickableChannel {
  id: string;
  type: number;
  name: string;
  guild_id?: string;
  parent_id?: string | null;
}

/** What a user gives a modal, by custom id (an input left out keeps what the modal pre-filled). */
export interface ModalAnswers {
  /** Text inputs. */
  values: Record<string, string>;
  /** Channel selects: the ids picked (`[]`: none). */
  channels: Record<string, string[]>;
  /** String selects: the values picked (left out: the options marked default). */
  selects?: Record<string, string[]>;
  /** Radio groups: the value picked (left out: the default option, if any). */
  radios?: Record<string, string>;
  /** File uploads: the files given (served by the fake, as Discord's CDN serves uploads). */
  files?: Record<
    string,
    Array<{ id: string; filename: string; size: number; url: string; proxy_url: string; content_type?: string }>
  >;
}

/**
 * The MODAL_SUBMIT data of `modal` answered with `answers` in `guildId`: each input as the client
 * submits it, refusing (as an error in the test) what the client would not let the user submit.
 */
export function modalSubmitData(
  modal: Json,
  answers: ModalAnswers,
  where: { guildId: string; channel: (id: string) => PickableChannel | undefined; permissions: string },
): Json {
  let id = 0;
  const resolvedChannels: Json = {};
  const resolvedFiles: Json = {};
  const kinds: Array<[Record<string, unknown> | undefined, number, string]> = [
    [answers.values, T.text, 'values'],
    [answers.channels, T.channelSelect, 'channels'],
    [answers.selects, T.stringSelect, 'selects'],
    [answers.radios, T.radioGroup, 'radios'],
    [answers.files, T.fileUpload, 'files'],
  ];
  const answer = (c: Json): Json => {
    const customId = String(c.custom_id);
    for (const [given, type, name] of kinds)
      if (given && customId in given && c.type !== type)
        throw new Error(`${customId} is a component of type ${String(c.type)}: not answered with \`${name}\``);
    const required = c.required !== false;
    if (c.type === T.text) {
      const value = answers.values[customId] ?? (c.value as string | undefined) ?? '';
      if (value === '' && required) throw new Error(`Discord submits no modal with ${customId} empty`);
      return { type: T.text, id: ++id, custom_id: customId, value };
    }
    if (c.type === T.stringSelect) {
      const options = (c.options as Json[] | undefined) ?? [];
      const picked =
        answers.selects?.[customId] ?? options.filter((o) => o.default === true).map((o) => String(o.value));
      for (const v of picked)
        if (!options.some((o) => o.value === v)) throw new Error(`${customId} offers no option ${v}`);
      const min = required ? Math.max(1, Number(c.min_values ?? 1)) : 0;
      if (picked.length < min || picked.length > Number(c.max_values ?? 1))
        throw new Error(`${customId}: Discord lets the user pick ${min} to ${String(c.max_values ?? 1)} options`);
      return { type: T.stringSelect, id: ++id, custom_id: customId, values: picked };
    }
    if (c.type === T.radioGroup) {
      const options = (c.options as Json[] | undefined) ?? [];
      const value =
        answers.radios?.[customId] ?? (options.find((o) => o.default === true)?.value as string | undefined);
      if (value !== undefined && !options.some((o) => o.value === value))
        throw new Error(`${customId} offers no option ${value}`);
      if (value === undefined && required) throw new Error(`Discord submits no modal with ${customId} unpicked`);
      return { type: T.radioGroup, id: ++id, custom_id: customId, value: value ?? null };
    }
    if (c.type === T.fileUpload) {
      const files = answers.files?.[customId] ?? [];
      const min = required ? Math.max(1, Number(c.min_values ?? 1)) : 0;
      if (files.length < min || files.length > Number(c.max_values ?? 1))
        throw new Error(`${customId}: Discord takes ${min} to ${String(c.max_values ?? 1)} files`);
      for (const f of files) resolvedFiles[f.id] = { ...f, ephemeral: true };
      return { type: T.fileUpload, id: ++id, custom_id: customId, values: files.map((f) => f.id) };
    }
    if (c.type !== T.channelSelect) throw new Error(`the fake answers no component of type ${String(c.type)}`);
    const picked = answers.channels[customId] ?? [];
    const min = required ? Math.max(1, Number(c.min_values ?? 1)) : 0;
    if (picked.length < min || picked.length > Number(c.max_values ?? 1))
      throw new Error(`${customId}: Discord lets the user pick ${min} to ${String(c.max_values ?? 1)} channels`);
    for (const pick of picked) resolvedChannels[pick] = resolvedChannel(c, pick, where);
    return { type: T.channelSelect, id: ++id, custom_id: customId, values: picked };
  };
  const components = ((modal.components as Json[] | undefined) ?? []).map((c) => {
    if (c.type === T.label) return { type: T.label, id: ++id, component: answer(c.component as Json) };
    if (c.type === T.row) return { type: T.row, id: ++id, components: ((c.components as Json[]) ?? []).map(answer) };
    return { type: c.type, id: ++id };
  });
  const resolved: Json = {
    ...(Object.keys(resolvedChannels).length > 0 ? { channels: resolvedChannels } : {}),
    ...(Object.keys(resolvedFiles).length > 0 ? { attachments: resolvedFiles } : {}),
  };
  return { custom_id: modal.custom_id, components, ...(Object.keys(resolved).length > 0 ? { resolved } : {}) };
}

function resolvedChannel(
  select: Json,
  id: string,
  where: { guildId: string; channel: (id: string) => PickableChannel | undefined; permissions: string },
): Json {
  const ch = where.channel(id);
  const types = select.channel_types as number[] | undefined;
  if (!ch || ch.guild_id !== where.guildId) throw new Error(`the select offers no channel ${id}: not in this server`);
  if (types && !types.includes(ch.type)) throw new Error(`the select offers only channel types ${types.join(', ')}`);
  return {
    id: ch.id,
    type: ch.type,
    name: ch.name,
    guild_id: ch.guild_id,
    parent_id: ch.parent_id ?? null,
    permissions: where.permissions,
    flags: 0,
    nsfw: false,
    position: 0,
    last_message_id: null,
    rate_limit_per_user: 0,
    topic: null,
  };
}
