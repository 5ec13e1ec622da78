/**
 * The `/chatbot edit` form: every setting of section 2.1, grouped (model and prompt, appearance,
 * contact and handoff, limits, privacy), each group cut into parts of at most 5 fields so a Discord
 * modal holds one part.
 */
import { SETTING_FIELDS, type SettingName } from '../../service/schemas/settings';
import type { FormField } from '../surface';
import type { AppliedSettings } from './applied';
import { settingLabel } from './labels';
import { checkSetting, type ModelChoice } from './parse';

export const MAX_FIELDS_PER_GROUP = 5;

const LONG_TEXT = new Set<SettingName>([
  'SystemMessage',
  'WelcomeMessage',
  'SuggestedMessage',
  'TalkToHumanResponseMessage',
  'RateLimitMessage',
  'ChatbotPrivacyPolicyDescription',
]);

const HINTS: Partial<Record<string, string>> = {
  integer: 'a whole number',
  color: 'rgb(r,g,b)',
  url: 'https://...',
  email: 'name@example.com',
};

function initialText(v: string | number | boolean | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

export function settingsFormFields(applied: AppliedSettings, models?: readonly ModelChoice[]): FormField[] {
  const counts = new Map<string, number>();
  return SETTING_FIELDS.map((f) => {
    const n = counts.get(f.group) ?? 0;
    counts.set(f.group, n + 1);
    const part = Math.floor(n / MAX_FIELDS_PER_GROUP);
    const field: FormField = {
      name: f.name,
      label: settingLabel(f.name),
      kind: 'text',
      required: false,
      group: part === 0 ? f.group : `${f.group} ${part + 1}`,
    };
    if (f.kind === 'integer') field.kind = 'number';
    else if (f.kind === 'boolean') {
      field.kind = 'boolean';
      field.options = [
        { value: 'yes', label: 'Yes' },
        { value: 'no', label: 'No' },
      ];
    } else if (f.name === 'Model' && models && models.length > 0) {
      field.kind = 'select';
      field.options = models.map((m) => ({ value: m.key, label: `${m.name}${m.enabled ? '' : ' (disabled)'}` }));
    } else if (LONG_TEXT.has(f.name)) field.kind = 'textarea';
    const hint = HINTS[f.kind];
    if (hint) field.hint = hint;
    if (f.name === 'MessageLimit') field.hint = 'a whole number; -1 = unlimited';
    const init = initialText(applied[f.name]);
    if (init !== undefined) field.initial = init;
    return field;
  });
}

/**
 * The change a submitted form asks for: fields whose text differs from what was applied. An
 * emptied text setting is sent as '' (clears it); an empty number or yes/no means "leave as is".
 */
export function settingsChangeFromForm(
  applied: AppliedSettings,
  values: Record<string, string>,
  models?: readonly ModelChoice[],
): { change: AppliedSettings; errors: Record<string, string> } {
  const change: Record<string, string | number | boolean> = {};
  const errors: Record<string, string> = {};
  for (const f of SETTING_FIELDS) {
    const raw = values[f.name];
    if (raw === undefined) continue;
    const before = applied[f.name];
    if (raw.trim() === '') {
      if (before !== undefined && before !== '' && (f.kind === 'string' || f.kind === 'url' || f.kind === 'email'))
        change[f.name] = '';
      continue;
    }
    const checked = checkSetting(f.name, raw, models);
    if (!checked.ok) {
      errors[f.name] = checked.error;
      continue;
    }
    if (checked.value !== before) change[f.name] = checked.value;
  }
  return { change: change as AppliedSettings, errors };
}
