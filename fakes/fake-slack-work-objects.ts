/**
 * The fake Slack's checks of Work Object metadata (chat.unfurl's `metadata.entities`,
 * entity.presentDetails' `metadata`), as Slack's docs and @slack/types describe it: a supported
 * entity type, `url` and `external_ref.id`, a title, `app_unfurl_url` on an unfurl, custom fields
 * with a label, a unique key and a type, the entity type's own fields only (a preview image with its
 * alt_text and an image), a display order naming fields that are there, actions with text and an
 * action_id. Slack answers a malformed entity `ok` with a warning (`invalid_metadata_format`) and
 * drops it; the fake does the same and keeps the problems.
 */
type Obj = Record<string, unknown>;

export const ENTITY_TYPES = [
  'slack#/entities/task',
  'slack#/entities/file',
  'slack#/entities/item',
  'slack#/entities/incident',
  'slack#/entities/content_item',
];

/** Each entity type's own fields (@slack/types: TaskEntityFields, FileEntityFields, ...). */
const TYPE_FIELDS: Record<string, string[]> = {
  'slack#/entities/content_item': [
    'preview',
    'description',
    'created_by',
    'date_created',
    'date_updated',
    'last_modified_by',
  ],
  'slack#/entities/file': [
    'preview',
    'created_by',
    'date_created',
    'date_updated',
    'last_modified_by',
    'file_size',
    'mime_type',
    'full_size_preview',
  ],
  'slack#/entities/task': [
    'description',
    'created_by',
    'date_created',
    'date_updated',
    'assignee',
    'status',
    'due_date',
    'priority',
  ],
  'slack#/entities/incident': [
    'status',
    'priority',
    'urgency',
    'created_by',
    'assigned_to',
    'date_created',
    'date_updated',
    'description',
    'service',
  ],
  'slack#/entities/item': [],
};

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isUrl = (v: unknown): boolean => isStr(v) && /^https?:\/\/\S+$/i.test(v);

function actionProblems(actions: unknown, at: string): string[] {
  if (actions === undefined) return [];
  if (!isObj(actions)) return [`${at}: must be an object`];
  const out: string[] = [];
  for (const kind of ['primary_actions', 'overflow_actions']) {
    const list = actions[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) out.push(`${at}/${kind}: must be an array`);
    else
      list.forEach((b: unknown, i) => {
        if (!isObj(b) || !isStr(b.text) || !isStr(b.action_id))
          out.push(`missing required field: text or action_id (pointer: ${at}/${kind}/${i})`);
      });
  }
  return out;
}

function fieldProblems(type: string, fields: unknown, at: string): string[] {
  if (fields === undefined) return [];
  if (!isObj(fields)) return [`${at}: must be an object`];
  const allowed = TYPE_FIELDS[type] ?? [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (!allowed.includes(k)) out.push(`unknown field ${k} for ${type} (pointer: ${at}/${k})`);
    if (k === 'preview' && (!isObj(v) || !isStr(v.alt_text) || !(isUrl(v.image_url) || isObj(v.slack_file))))
      out.push(`missing required field: alt_text and image_url (pointer: ${at}/preview)`);
    if (k === 'description' && (!isObj(v) || typeof v.value !== 'string'))
      out.push(`missing required field: value (pointer: ${at}/description)`);
  }
  return out;
}

function customProblems(custom: unknown, at: string): { out: string[]; keys: string[] } {
  if (custom === undefined) return { out: [], keys: [] };
  if (!Array.isArray(custom)) return { out: [`${at}: must be an array`], keys: [] };
  const out: string[] = [];
  const keys: string[] = [];
  custom.forEach((f: unknown, i) => {
    if (!isObj(f) || !isStr(f.label) || !isStr(f.key) || !isStr(f.type)) {
      out.push(`missing required field: label, key or type (pointer: ${at}/${i})`);
      return;
    }
    if (keys.includes(f.key)) out.push(`duplicate key ${f.key} (pointer: ${at}/${i}/key)`);
    keys.push(f.key);
  });
  return { out, keys };
}

/** What is wrong with one entity (none: []); `unfurl`: it goes with chat.unfurl, which needs app_unfurl_url. */
export function entityProblems(e: unknown, at: string, unfurl: boolean): string[] {
  if (!isObj(e)) return [`${at}: must be an object`];
  const out: string[] = [];
  const type = String(e.entity_type ?? '');
  if (!ENTITY_TYPES.includes(type)) out.push(`unsupported entity_type "${type}" (pointer: ${at}/entity_type)`);
  if (!isUrl(e.url)) out.push(`missing required field: url (pointer: ${at}/url)`);
  if (!isObj(e.external_ref) || !isStr(e.external_ref.id))
    out.push(`missing required field: id (pointer: ${at}/external_ref/id)`);
  if (unfurl && !isUrl(e.app_unfurl_url)) out.push(`missing required field: app_unfurl_url (pointer: ${at})`);
  const payload = e.entity_payload;
  if (!isObj(payload)) return [...out, `missing required field: entity_payload (pointer: ${at})`];
  const attrs = payload.attributes;
  if (!isObj(attrs) || !isObj(attrs.title) || !isStr(attrs.title.text))
    out.push(`missing required field: title (pointer: ${at}/entity_payload/attributes/title/text)`);
  out.push(...fieldProblems(type, payload.fields, `${at}/entity_payload/fields`));
  const custom = customProblems(payload.custom_fields, `${at}/entity_payload/custom_fields`);
  out.push(...custom.out);
  if (payload.display_order !== undefined) {
    const named = [...custom.keys, ...(isObj(payload.fields) ? Object.keys(payload.fields) : [])];
    if (!Array.isArray(payload.display_order)) out.push(`${at}/entity_payload/display_order: must be an array`);
    else
      for (const k of payload.display_order)
        if (!named.includes(String(k)))
          out.push(`display_order names ${String(k)}, which is no field (pointer: ${at}/entity_payload/display_order)`);
  }
  out.push(...actionProblems(payload.actions, `${at}/entity_payload/actions`));
  return out;
}

/** chat.unfurl's metadata: `{ entities: [...] }`, each entity checked. */
export function unfurlMetadataProblems(metadata: unknown): string[] {
  if (!isObj(metadata) || !Array.isArray(metadata.entities) || metadata.entities.length === 0)
    return ['missing required field: entities (pointer: /metadata)'];
  return metadata.entities.flatMap((e, i) => entityProblems(e, `/metadata/entities/${i}`, true));
}
