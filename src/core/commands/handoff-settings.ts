/**
 * `/handoff settings` (admins): this office's handoff rules. Without arguments, a form of every rule
 * (handoff-settings-form.ts; where no form can open, each rule and whether the office set it or the
 * deployment's variable applies); `/handoff settings <name> <value>` sets one
 * for this office (named by its variable, validated as that variable is), `<name> default` goes back
 * to the deployment's. Kept in the office record (tenants/office-record.ts), read by the handoff with
 * the deployment's value as the fallback (handoff/rules.ts).
 */
import type { TenantScope } from '../context';
import { HANDOFF_RULES, describeRules, ruleNamed } from '../handoff/rules';
import type { Card, FormResult, Invocation } from '../surface';
import { handoffSettingsForm, submitHandoffSettings } from './handoff-settings-form';
import type { OfficeHandoffRules } from '../tenants/office-record';
import { saveOfficePart, storedOffices } from '../tenants/offices';
import { usageOf } from './catalogue';
import { UsageError, restValue, splitHead } from './grammar';

const USAGE = usageOf('handoff');
const NAMES = HANDOFF_RULES.map((r) => r.name).join(', ');

/** The rules as a card: each one's value, and where it comes from. */
export function rulesCard(ctx: TenantScope, own: OfficeHandoffRules | undefined): Card {
  return {
    title: 'Handoff settings',
    fields: describeRules(ctx.config, own).map((r) => ({
      label: r.name,
      value: `${r.value} (${r.from === 'office' ? 'this office' : "the deployment's"})`,
    })),
    footer: 'Change one with /handoff settings <name> <value>; "<name> default" goes back to the deployment\'s.',
  };
}

/** The form's submit (handoff-settings-form.ts): saved for the office, the rules shown back. */
export async function submitHandoffSettingsForm(
  ctx: TenantScope,
  inv: Invocation,
  _state: string,
  values: Record<string, string>,
): Promise<FormResult> {
  // The office whose rules these are: an org-wide install's workspaces share the enterprise's.
  const result = await submitHandoffSettings(ctx, inv, ctx.canonical, values);
  if (!result.ok) return result;
  if ('saved' in result)
    await inv.reply(
      { text: "Saved this office's handoff settings.", cards: [rulesCard(ctx, result.saved)] },
      { ephemeral: true },
    );
  return { ok: true };
}

export async function handoffSettings(ctx: TenantScope, inv: Invocation, args: string): Promise<void> {
  if (!inv.actor.isAdmin) {
    await inv.reply({ text: "Only admins may see or change this office's handoff settings." }, { ephemeral: true });
    return;
  }
  const tenant = ctx.canonical;
  const own = (await storedOffices(ctx).of(tenant))?.handoff;
  const { head, rest } = splitHead(args.trim());
  if (head === '' && inv.openForm) {
    await inv.openForm(handoffSettingsForm(ctx, own));
    return;
  }
  if (head === '') {
    await inv.reply({ text: "This office's handoff settings.", cards: [rulesCard(ctx, own)] }, { ephemeral: true });
    return;
  }
  const spec = ruleNamed(head);
  if (!spec) throw new UsageError(`"${head.slice(0, 40)}" is not a handoff setting: use one of ${NAMES}.`, USAGE);
  const text = restValue(rest);
  const fix = `For example /handoff settings ${spec.name} ${spec.example}; "/handoff settings ${spec.name} default" uses the deployment's.`;
  if (text === '') throw new UsageError(`${spec.name}: give a value. ${fix}`, USAGE);
  const next: OfficeHandoffRules = { ...own };
  if (text.toLowerCase() === 'default') delete next[spec.key];
  else {
    const value = spec.parse(text);
    if (value === undefined)
      throw new UsageError(`${spec.name}: "${text.slice(0, 80)}" ${spec.expected}. ${fix}`, USAGE);
    Object.assign(next, { [spec.key]: value });
  }
  await saveOfficePart(ctx, tenant, 'handoff', Object.keys(next).length > 0 ? next : undefined);
  ctx.log.info({ tenant, setting: spec.name, by: inv.actor.id }, 'office changed a handoff setting');
  const shown = describeRules(ctx.config, next).find((r) => r.name === spec.name);
  const said =
    shown?.from === 'office'
      ? `${spec.name} is ${shown.value} for this office from now on.`
      : `${spec.name}: back to the deployment's (${shown?.value ?? ''}).`;
  await inv.reply({ text: said, cards: [rulesCard(ctx, next)] }, { ephemeral: true });
}
