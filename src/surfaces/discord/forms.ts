/**
 * Core's forms on Discord, whose modals hold at most 5 fields (5 top-level components): the fields
 * are cut into chunks (by group, then 5 at a time). One chunk opens as one modal (modal.ts); more
 * show a panel message with a button per chunk, Submit and Cancel. Values given so far live in the
 * store between modals.
 */
import { z } from 'zod';
import type { FormField, FormSpec } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { discordRecords } from './records';
import { formIds } from './custom-ids';
import type { ApiRow } from './render';

const MAX_INPUTS = 5;
const SESSION_TTL_MS = 60 * 60 * 1000;

const fieldSchema = z.object({
  name: z.string(),
  label: z.string(),
  kind: z.enum(['text', 'textarea', 'number', 'select', 'choice', 'boolean', 'channel']),
  secret: z.boolean().optional(),
  required: z.boolean(),
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
  initial: z.string().optional(),
  hint: z.string().optional(),
  group: z.string(),
});

const sessionSchema = z.object({
  formId: z.string(),
  title: z.string(),
  state: z.string(),
  submitLabel: z.string(),
  fields: z.array(fieldSchema),
  chunks: z.array(z.object({ label: z.string(), names: z.array(z.string()) })),
  values: z.record(z.string()),
  /** Chunks the user has opened and submitted. */
  done: z.array(z.number()),
  userId: z.string(),
  errors: z.record(z.string()).optional(),
});

export type FormSession = z.infer<typeof sessionSchema>;

export function chunkFields(fields: FormField[]): Array<{ label: string; names: string[] }> {
  const groups = new Map<string, FormField[]>();
  for (const f of fields) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  const chunks: Array<{ label: string; names: string[] }> = [];
  for (const [group, fs] of groups) {
    const parts = Math.ceil(fs.length / MAX_INPUTS);
    for (let i = 0; i < parts; i++) {
      const label = parts > 1 ? `${group} (${i + 1}/${parts})` : group;
      chunks.push({
        label: label.charAt(0).toUpperCase() + label.slice(1),
        names: fs.slice(i * MAX_INPUTS, (i + 1) * MAX_INPUTS).map((f) => f.name),
      });
    }
  }
  return chunks;
}

export class FormSessions {
  constructor(private readonly store: StateStore) {}

  /** `workspace`: the place's where the form was opened (a DM's its user's); its session lives in that part of the store. */
  async create(workspace: string, key: string, form: FormSpec, userId: string): Promise<FormSession> {
    const values: Record<string, string> = {};
    for (const f of form.fields) if (f.initial !== undefined && !f.secret) values[f.name] = f.initial;
    const session: FormSession = {
      formId: form.id,
      title: form.title,
      state: form.state,
      submitLabel: form.submitLabel ?? 'Submit',
      fields: form.fields,
      chunks: chunkFields(form.fields),
      values,
      done: [],
      userId,
    };
    await this.save(workspace, key, session);
    return session;
  }

  async load(workspace: string, key: string): Promise<FormSession | undefined> {
    const r = discordRecords.form(this.store, workspace, key);
    // A session lives an hour: one of before the upgrade is read where it was, not moved (its
    // owner is checked by the form flow).
    let found = await r.view.get(r.key);
    for (const old of r.legacy) found ??= await this.store.get(old);
    const parsed = sessionSchema.safeParse(found);
    return parsed.success ? parsed.data : undefined;
  }

  /** Kept between modals without its secret fields (a key typed is used at once, never stored in clear). */
  async save(workspace: string, key: string, session: FormSession): Promise<void> {
    const values = { ...session.values };
    for (const f of session.fields) if (f.secret) delete values[f.name];
    const r = discordRecords.form(this.store, workspace, key);
    await r.view.set(r.key, { ...session, values }, SESSION_TTL_MS);
    for (const old of r.legacy) await this.store.delete(old);
  }

  async delete(workspace: string, key: string): Promise<void> {
    const r = discordRecords.form(this.store, workspace, key);
    await r.view.delete(r.key);
    for (const old of r.legacy) await this.store.delete(old);
  }
}

export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

/** The field's name as the user sees it: its label, and the wire name when it differs. */
export function fieldTitle(session: FormSession, name: string): string {
  const f = session.fields.find((x) => x.name === name);
  if (!f) return name;
  return f.label && f.label !== f.name ? `${f.label} (${f.name})` : f.name;
}

export function errorsText(session: FormSession, errors: Record<string, string>): string {
  const lines = Object.entries(errors).map(([name, msg]) => `\u2022 **${fieldTitle(session, name)}**: ${msg}`);
  return `Please fix these fields:\n${lines.join('\n')}`;
}

/** The panel of a form with several modals: status, then a button per chunk, Submit and Cancel. */
export function panelOf(key: string, session: FormSession): { content: string; components: ApiRow[] } {
  const status = session.chunks
    .map((c, i) => `${session.done.includes(i) ? '\u2705' : '\u270f\ufe0f'} ${c.label}`)
    .join('\n');
  let content = `**${session.title}**\nOpen each part, fill it in, then press **${session.submitLabel}**.\n${status}`;
  if (session.errors && Object.keys(session.errors).length > 0) content += `\n\n${errorsText(session, session.errors)}`;
  const buttons = [
    ...session.chunks.slice(0, 23).map((c, i) => ({
      type: 2 as const,
      style: 2 as const,
      label: cut(c.label, 80),
      custom_id: formIds.group(key, i),
    })),
    { type: 2 as const, style: 1 as const, label: cut(session.submitLabel, 80), custom_id: formIds.submit(key) },
    { type: 2 as const, style: 4 as const, label: 'Cancel', custom_id: formIds.cancel(key) },
  ];
  const rows: ApiRow[] = [];
  for (const b of buttons) {
    if (rows.length === 0 || rows[rows.length - 1]!.components.length >= 5) rows.push({ type: 1, components: [] });
    rows[rows.length - 1]!.components.push(b);
  }
  return { content: cut(content, 2000), components: rows };
}
