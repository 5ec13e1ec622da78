/**
 * The fake Discord's modals, by Discord's component reference: what a MODAL callback (type 9) may
 * carry, what a test sees of it, and the MODAL_SUBMIT interaction's data a user's answers make.
 *
 * A modal holds 1 to 5 top-level components: Labels (type 18: `label` of at most 45, `description`
 * of at most 100, one `component`: a text input, or a string, user, role, mentionable or channel
 * select), text displays (10), or the deprecated action row (1) holding one text input. A select in
 * a modal may not be `disabled`; its `min_values` is at least 1 unless `required` is false. Every
 * `custom_id` is 1 to 100 characters and unique in the modal.
 *
 * The submit carries every input of the modal in the modal's own shape (`{type: 18, id, component:
 * {type, id, custom_id, value | values}}`, or a row's `components`), an input left alone carrying its
 * pre-filled value; the channels picked are in `resolved.channels` as partial channels with the
 * member's `permissions` there. The Discord client offers a channel select only the channels of the
 * server of `channel_types`, and submits nothing while a required input is empty: a test asking for
 * anything else is an error in the test.
 */
type Json = Record<string, unknown>;

const T = { row: 1, text: 4, channelSelect: 8, textDisplay: 10, label: 18 };
const SELECTS = new Set([3, 5, 6, 7, 8]);

/** [path, message] of the first thing Discord would refuse in a modal callback's data; undefined: none. */
export function modalProblem(data: Json | undefined): [string, string] | undefined {
  const top = (data?.components as Json[] | undefined) ?? [];
  if (top.length < 1 || top.length > 5) return ['data.components', 'Must be between 1 and 5 in length.'];
  if (String(data?.title ?? '').length > 45) return ['data.title', 'Must be 45 or fewer in length.'];
  const ids = new Set<string>();
  for (const [i, c] of top.entries()) {
    const path = `data.components.${i}`;
    let inputs: Json[];
    if (c.type === T.textDisplay) continue;
    if (c.type === T.row) {
      inputs = (c.components as Json[] | undefined) ?? [];
      if (inputs.length !== 1 || inputs[0]!.type !== T.text)
        return [`${path}.components`, 'A modal action row holds one text input.'];
      if (String(inputs[0]!.label ?? '').length > 45)
        return [`${path}.components.0.label`, 'Must be 45 or fewer in length.'];
    } else if (c.type === T.label) {
      const label = String(c.label ?? '');
      if (label.length < 1 || label.length > 45) return [`${path}.label`, 'Must be between 1 and 45 in length.'];
      if (String(c.description ?? '').length > 100) return [`${path}.description`, 'Must be 100 or fewer in length.'];
      const inner = c.component as Json | undefined;
      if (!inner || (inner.type !== T.text && !SELECTS.has(Number(inner.type))))
        return [`${path}.component.type`, 'A label holds a text input or a select.'];
      inputs = [inner];
    } else return [`${path}.type`, 'Not allowed in a modal.'];
    for (const input of inputs) {
      const p = selectOrInputProblem(input);
      if (p) return [`${path}.component.${p[0]}`, p[1]];
      const id = String(input.custom_id ?? '');
      if (ids.has(id)) return [`${path}.component.custom_id`, 'Component custom id cannot be duplicated'];
      ids.add(id);
    }
  }
  return undefined;
}

function selectOrInputProblem(c: Json): [string, string] | undefined {
  const id = String(c.custom_id ?? '');
  if (id.length < 1 || id.length > 100) return ['custom_id', 'Must be between 1 and 100 in length.'];
  if (!SELECTS.has(Number(c.type))) return undefined;
  if (c.disabled !== undefined) return ['disabled', 'Modals can not have disabled components.'];
  const min = c.min_values === undefined ? 1 : Number(c.min_values);
  const max = c.max_values === undefined ? 1 : Number(c.max_values);
  if (min < 0 || max < 1 || max > 25 || min > max) return ['min_values', 'Out of range.'];
  if (min < 1 && c.required !== false) return ['min_values', 'Must be at least 1 for a required select.'];
  if (c.type === T.channelSelect && c.channel_types !== undefined && !Array.isArray(c.channel_types))
    return ['channel_types', 'Must be an array of channel types.'];
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

/**
 * The MODAL_SUBMIT data of `modal` answered with `values` (text inputs, by custom id) and `channels`
 * (channel selects, by custom id: the ids picked, `[]` for none) in `guildId`.
 */
export function modalSubmitData(
  modal: Json,
  answers: { values: Record<string, string>; channels: Record<string, string[]> },
  where: { guildId: string; channel: (id: string) => PickableChannel | undefined; permissions: string },
): Json {
  let id = 0;
  const resolved: Json = {};
  const answer = (c: Json): Json => {
    const customId = String(c.custom_id);
    if (c.type === T.text) {
      if (customId in answers.channels) throw new Error(`${customId} is a text input, not a channel select`);
      const value = answers.values[customId] ?? (c.value as string | undefined) ?? '';
      if (value === '' && c.required !== false) throw new Error(`Discord submits no modal with ${customId} empty`);
      return { type: T.text, id: ++id, custom_id: customId, value };
    }
    if (c.type !== T.channelSelect) throw new Error(`the fake answers no select of type ${String(c.type)}`);
    if (customId in answers.values) throw new Error(`${customId} is a channel select: pick with \`channels\``);
    const picked = answers.channels[customId] ?? [];
    const min = c.required === false ? 0 : Math.max(1, Number(c.min_values ?? 1));
    if (picked.length < min || picked.length > Number(c.max_values ?? 1))
      throw new Error(`${customId}: Discord lets the user pick ${min} to ${String(c.max_values ?? 1)} channels`);
    for (const pick of picked) resolved[pick] = resolvedChannel(c, pick, where);
    return { type: T.channelSelect, id: ++id, custom_id: customId, values: picked };
  };
  const components = ((modal.components as Json[] | undefined) ?? []).map((c) => {
    if (c.type === T.label) return { type: T.label, id: ++id, component: answer(c.component as Json) };
    if (c.type === T.row) return { type: T.row, id: ++id, components: ((c.components as Json[]) ?? []).map(answer) };
    return { type: c.type, id: ++id };
  });
  return {
    custom_id: modal.custom_id,
    components,
    ...(Object.keys(resolved).length > 0 ? { resolved: { channels: resolved } } : {}),
  };
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
