/**
 * A setting's value as people type it (`/chatbot set Temperature 1`, a form field), checked as the
 * interface types the field, with a message that names the field and says how to fix it.
 */
import {
  SETTING_FIELDS,
  coerceSettingValue,
  findSettingName,
  settingsFieldsSchema,
  type SettingKind,
  type SettingName,
} from '../../service/schemas/settings';
import type { TenantScope } from '../context';
import type { AppliedSettings } from './applied';

export interface ModelChoice {
  key: string;
  name: string;
  enabled: boolean;
}

const FIX: Record<SettingKind, (name: string) => string> = {
  string: (n) => `give any text, e.g. /chatbot set ${n} "some text"`,
  integer: (n) => `give a whole number, e.g. /chatbot set ${n} 10`,
  boolean: (n) => `give yes or no (true/false), e.g. /chatbot set ${n} yes`,
  color: (n) => `give a colour as rgb(r,g,b), each 0-255, e.g. /chatbot set ${n} rgb(37,99,235)`,
  url: (n) => `give an http(s) URL, e.g. /chatbot set ${n} https://example.com`,
  email: (n) => `give an e-mail address, e.g. /chatbot set ${n} team@example.com`,
};

export function kindOf(name: SettingName): SettingKind {
  return SETTING_FIELDS.find((f) => f.name === name)?.kind ?? 'string';
}

export function settingNames(): string {
  return SETTING_FIELDS.map((f) => f.name).join(', ');
}

export type SettingResult<T> = { ok: true; value: T } | { ok: false; error: string };

export function resolveSettingName(typed: string): SettingResult<SettingName> {
  const name = findSettingName(typed.trim());
  if (name) return { ok: true, value: name };
  return { ok: false, error: `"${typed}" is not a chatbot setting. Settings are: ${settingNames()}.` };
}

/** Model by key or by name (case-insensitive), against ModelList. */
export function resolveModel(models: readonly ModelChoice[], typed: string): SettingResult<string> {
  const t = typed.trim();
  const hit =
    models.find((m) => m.key === t) ??
    models.find((m) => m.name.toLowerCase() === t.toLowerCase()) ??
    models.find((m) => m.key.toLowerCase() === t.toLowerCase());
  const enabled =
    models
      .filter((m) => m.enabled)
      .map((m) => `${m.name} (${m.key})`)
      .join(', ') || 'none listed';
  if (hit?.enabled) return { ok: true, value: hit.key };
  if (hit) return { ok: false, error: `Model: ${hit.name} (${hit.key}) is disabled. Choose one of: ${enabled}.` };
  return { ok: false, error: `Model: "${typed}" is not a known model. Models: ${enabled}. See /chatbot models.` };
}

/** Checks one value; Model needs the model list (fetched by the caller once per change). */
export function checkSetting(
  name: SettingName,
  raw: string,
  models?: readonly ModelChoice[],
): SettingResult<string | number | boolean> {
  if (name === 'Model' && models) {
    const m = resolveModel(models, raw);
    if (!m.ok) return m;
    raw = m.value;
  }
  const value = coerceSettingValue(name, raw);
  const parsed = settingsFieldsSchema.safeParse({ [name]: value });
  if (parsed.success) {
    const v = (parsed.data as Record<string, unknown>)[name];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return { ok: true, value: v };
  }
  const why = parsed.success
    ? `${name} has an unexpected value`
    : (parsed.error.issues[0]?.message ?? `${name} is not valid`);
  return { ok: false, error: `${why}: ${FIX[kindOf(name)](name)}.` };
}

export async function fetchModels(ctx: Pick<TenantScope, 'chatbot'>): Promise<ModelChoice[]> {
  return ctx.chatbot.client.listModels();
}

/** The value as people read it: booleans as yes/no, a Model key with its name. */
export function displaySetting(
  name: SettingName,
  value: string | number | boolean,
  models?: readonly ModelChoice[],
): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (name === 'Model' && models) {
    const m = models.find((x) => x.key === String(value));
    if (m) return `${m.name} (${m.key})`;
  }
  const s = String(value);
  return s === '' ? '(empty)' : s;
}

export function describeApplied(applied: AppliedSettings, models?: readonly ModelChoice[]): string[] {
  const lines: string[] = [];
  for (const f of SETTING_FIELDS) {
    const v = applied[f.name];
    if (v === undefined) continue;
    lines.push(`${f.name}: ${displaySetting(f.name, v, models)}`);
  }
  return lines;
}
