/**
 * `/handoff settings` as a form (a Slack modal, a Discord modal): one field per rule, named by its
 * variable, pre-filled with the office's own value; left empty, the deployment's applies (its value is
 * in the field's hint). A submit is validated as the command's `<name> <value>` is (rules.ts), each
 * refusal on its field with the value it must be and an example, and nothing is saved until every
 * field is right; then the whole of the office's rules is written at once (office-record.ts).
 */
import type { TenantScope } from '../context';
import { HANDOFF_RULES, describeRules } from '../handoff/rules';
import type { FormField, FormResult, FormSpec, Invocation } from '../surface';
import type { OfficeHandoffRules } from '../tenants/office-record';
import { saveOfficePart } from '../tenants/offices';

export const HANDOFF_SETTINGS_FORM = 'handoff.settings';

type Spec = (typeof HANDOFF_RULES)[number];

/** The office's own value of a rule as it is typed (seconds, `off`, host names by commas); '' when unset. */
function typedValue(spec: Spec, own: OfficeHandoffRules | undefined): string {
  const v = own?.[spec.key];
  if (v === undefined) return '';
  if (Array.isArray(v)) return v.join(',');
  if (typeof v === 'number') return spec.key === 'firstReplyMs' && v === 0 ? 'off' : String(v / 1000);
  return String(v);
}

/** Discord's modals hold five inputs: the assignment and times in one part, the rest in another. */
const groupOf = (spec: Spec): string =>
  spec.key === 'onNoAnswer' || spec.key === 'linkHosts' ? 'answers and links' : 'assignment and times';

export function handoffSettingsForm(ctx: Pick<TenantScope, 'config'>, own: OfficeHandoffRules | undefined): FormSpec {
  const shown = describeRules(ctx.config, undefined);
  const fields: FormField[] = HANDOFF_RULES.map((spec) => {
    const initial = typedValue(spec, own);
    const deployment = shown.find((r) => r.name === spec.name)?.value ?? '';
    return {
      name: spec.name,
      label: spec.name,
      kind: 'text',
      required: false,
      ...(initial !== '' ? { initial } : {}),
      hint: `Empty: the deployment's (${deployment}). E.g. ${spec.example}.`.slice(0, 100),
      group: groupOf(spec),
    };
  });
  return { id: HANDOFF_SETTINGS_FORM, title: 'Handoff settings', state: '', fields, submitLabel: 'Save' };
}

/** The office's rules from a submitted form, or each refused field with why. */
export function rulesFromForm(
  values: Record<string, string>,
): { ok: true; rules: OfficeHandoffRules } | { ok: false; errors: Record<string, string> } {
  const rules: OfficeHandoffRules = {};
  const errors: Record<string, string> = {};
  for (const spec of HANDOFF_RULES) {
    const text = (values[spec.name] ?? '').trim();
    if (text === '' || text.toLowerCase() === 'default') continue;
    const value = spec.parse(text);
    if (value === undefined)
      errors[spec.name] =
        `${spec.name} ${spec.expected}; for example ${spec.example}, or empty for the deployment's.`.slice(0, 300);
    else Object.assign(rules, { [spec.key]: value });
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, rules };
}

/** Saves a submitted form for the office (`tenant`: the office's canonical tenant); `reply` shows the rules after. */
export async function submitHandoffSettings(
  ctx: TenantScope,
  inv: Invocation,
  tenant: Parameters<typeof saveOfficePart>[1],
  values: Record<string, string>,
): Promise<FormResult | { ok: true; saved: OfficeHandoffRules }> {
  const first = HANDOFF_RULES[0]!.name;
  if (!inv.actor.isAdmin)
    return { ok: false, errors: { [first]: "Only admins may see or change this office's handoff settings." } };
  const read = rulesFromForm(values);
  if (!read.ok) return read;
  await saveOfficePart(ctx, tenant, 'handoff', Object.keys(read.rules).length > 0 ? read.rules : undefined);
  ctx.log.info({ tenant, settings: Object.keys(read.rules), by: inv.actor.id }, 'office changed its handoff settings');
  return { ok: true, saved: read.rules };
}
