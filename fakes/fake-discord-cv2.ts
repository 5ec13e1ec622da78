/**
 * The fake Discord's checks of Components V2 (flag IS_COMPONENTS_V2, 1 << 15), by Discord's
 * reference: such a message has neither content nor embeds; its top-level components are action
 * rows, sections, text displays, media galleries, files, separators or containers; at most 40
 * components in all (nested ones and accessories count) and 4,000 characters of text displays; a
 * section holds 1 to 3 text displays and a thumbnail or button accessory; a media gallery 1 to 10
 * items; an action row 1 to 5 buttons (label at most 80, custom_id at most 100). Without the flag,
 * only action rows may be sent. Returns [path, message] of the first problem, or undefined.
 */
type Json = Record<string, unknown>;

export const IS_COMPONENTS_V2 = 1 << 15;
export const CV2_REFERENCE = { components: 40, text: 4_000 };

const T = {
  row: 1,
  button: 2,
  section: 9,
  text: 10,
  thumbnail: 11,
  gallery: 12,
  file: 13,
  separator: 14,
  container: 17,
};
const TOP = new Set([T.row, T.section, T.text, T.gallery, T.file, T.separator, T.container]);
const IN_CONTAINER = new Set([T.row, T.section, T.text, T.gallery, T.file, T.separator]);

type Problem = [string, string];

const media = (m: unknown): boolean =>
  typeof m === 'object' && m !== null && /^(https?|attachment):\/\//.test(String((m as Json).url ?? ''));

function check(c: Json, path: string, count: { n: number; chars: number }): Problem | undefined {
  count.n++;
  const kids = (c.components as Json[] | undefined) ?? [];
  switch (c.type) {
    case T.text: {
      const content = c.content;
      if (typeof content !== 'string' || content.length === 0) return [`${path}.content`, 'This field is required'];
      count.chars += content.length;
      return undefined;
    }
    case T.button: {
      if (String(c.label ?? '').length > 80) return [`${path}.label`, 'Must be 80 or fewer in length.'];
      if (String(c.custom_id ?? '').length > 100) return [`${path}.custom_id`, 'Must be 100 or fewer in length.'];
      return undefined;
    }
    case T.row: {
      if (kids.length < 1 || kids.length > 5) return [`${path}.components`, 'Must be between 1 and 5 in length.'];
      for (const [i, k] of kids.entries()) {
        if (k.type !== T.button) return [`${path}.components.${i}.type`, 'Value of field "type" must be one of (2,).'];
        const p = check(k, `${path}.components.${i}`, count);
        if (p) return p;
      }
      return undefined;
    }
    case T.section: {
      if (kids.length < 1 || kids.length > 3) return [`${path}.components`, 'Must be between 1 and 3 in length.'];
      for (const [i, k] of kids.entries()) {
        if (k.type !== T.text) return [`${path}.components.${i}.type`, 'A section holds text displays.'];
        const p = check(k, `${path}.components.${i}`, count);
        if (p) return p;
      }
      const acc = c.accessory as Json | undefined;
      if (!acc || (acc.type !== T.thumbnail && acc.type !== T.button))
        return [`${path}.accessory`, 'A section needs a thumbnail or button accessory.'];
      return check(acc, `${path}.accessory`, count);
    }
    case T.thumbnail:
      return media(c.media) ? undefined : [`${path}.media.url`, 'Scheme must be one of (http, https, attachment).'];
    case T.gallery: {
      const items = (c.items as Json[] | undefined) ?? [];
      if (items.length < 1 || items.length > 10) return [`${path}.items`, 'Must be between 1 and 10 in length.'];
      const bad = items.findIndex((it) => !media(it.media));
      return bad >= 0
        ? [`${path}.items.${bad}.media.url`, 'Scheme must be one of (http, https, attachment).']
        : undefined;
    }
    case T.separator:
    case T.file:
      return undefined;
    case T.container: {
      if (kids.length < 1) return [`${path}.components`, 'Must be 1 or more in length.'];
      for (const [i, k] of kids.entries()) {
        if (!IN_CONTAINER.has(Number(k.type))) return [`${path}.components.${i}.type`, 'Not allowed in a container.'];
        const p = check(k, `${path}.components.${i}`, count);
        if (p) return p;
      }
      return undefined;
    }
    default:
      return [`${path}.type`, 'Unknown component type.'];
  }
}

export function componentsV2Problem(body: Json, flags: number): Problem | undefined {
  const components = (body.components as Json[] | undefined) ?? [];
  if ((flags & IS_COMPONENTS_V2) === 0) {
    const v2 = components.findIndex((c) => c.type !== T.row);
    return v2 >= 0 ? [`components.${v2}.type`, 'Components V2 need the IS_COMPONENTS_V2 flag.'] : undefined;
  }
  if (typeof body.content === 'string' && body.content.length > 0)
    return ['content', 'Cannot send content with the IS_COMPONENTS_V2 flag.'];
  if (Array.isArray(body.embeds) && body.embeds.length > 0)
    return ['embeds', 'Cannot send embeds with the IS_COMPONENTS_V2 flag.'];
  const count = { n: 0, chars: 0 };
  for (const [i, c] of components.entries()) {
    if (!TOP.has(Number(c.type))) return [`components.${i}.type`, 'Not allowed at the top level.'];
    const p = check(c, `components.${i}`, count);
    if (p) return p;
  }
  if (count.n > CV2_REFERENCE.components)
    return ['components', `Must be ${CV2_REFERENCE.components} or fewer in total.`];
  if (count.chars > CV2_REFERENCE.text) return ['components', `Text must be ${CV2_REFERENCE.text} or fewer in total.`];
  return undefined;
}

/** What a message shows as text: its content and, under Components V2, every text display's. */
export function shownText(m: { content: string; components: unknown[] }): string {
  const texts: string[] = [];
  const walk = (c: unknown): void => {
    if (typeof c !== 'object' || c === null) return;
    const o = c as Json;
    if (o.type === T.text && typeof o.content === 'string') texts.push(o.content);
    for (const k of (o.components as unknown[] | undefined) ?? []) walk(k);
    walk(o.accessory);
  };
  for (const c of m.components) walk(c);
  return [m.content, ...texts].filter((t) => t !== '').join('\n');
}

/** The containers of a Components V2 message (one per listing). */
export function containersOf(m: { components: unknown[] }): Json[] {
  return (m.components as Json[]).filter((c) => c.type === T.container);
}
