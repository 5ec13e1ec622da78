/**
 * The satisfaction survey after a close, where a surface shows forms for it (Discord: a modal with
 * a radio group 1-5 and an optional comment): the rating prompt's one "Rate the help" button opens
 * it, for the user who was helped only (the permission table's `rate`, asked before anything shows),
 * and its submit is the same rating as the prompt's 1-5 buttons (Handoffs.rate): on the ticket, in
 * the ticket thread, in the figures.
 */
import type { FormResult, FormSpec, Invocation } from '../surface';
import { refusalOf } from './decide';
import type { Handoffs } from './handoffs';
import { HANDOFF_SURVEY_FORM, type Ticket } from './model';
import { ratingQuestion } from './wording';

const SCORES = [
  { value: '1', label: '1 - poor' },
  { value: '2', label: '2' },
  { value: '3', label: '3' },
  { value: '4', label: '4' },
  { value: '5', label: '5 - great' },
];

export function surveyForm(t: Ticket): FormSpec {
  return {
    id: HANDOFF_SURVEY_FORM,
    title: 'Rate the help',
    state: t.id,
    submitLabel: 'Send',
    fields: [
      {
        name: 'rating',
        label: 'Your rating',
        kind: 'choice',
        required: true,
        options: SCORES,
        hint: ratingQuestion(t).slice(0, 100),
        group: 'Survey',
      },
      { name: 'comment', label: 'Anything to add? (optional)', kind: 'textarea', required: false, group: 'Survey' },
    ],
  };
}

/** "Rate the help": the survey for the user who was helped; anyone else is told why not. */
export async function openSurvey(handoffs: Handoffs, inv: Invocation, ticketId: string): Promise<void> {
  const t = await handoffs.load(ticketId);
  if (!t) return void (await inv.reply({ text: 'This ticket no longer exists.' }, { ephemeral: true }));
  const refused = refusalOf('rate', t, await handoffs.whoIs(inv, { action: 'rate', ticket: t }));
  if (refused) return void (await inv.reply({ text: refused.refusal }, { ephemeral: true }));
  if (!inv.openForm) {
    await inv.reply(
      { text: `${ratingQuestion(t)} This place shows no forms: use the 1-5 buttons.` },
      { ephemeral: true },
    );
    return;
  }
  await inv.openForm(surveyForm(t));
}

/**
 * The survey's submit: the rating (and comment) through the one rating path. The thanks replaced
 * the prompt (or was said to the user), and a refusal was said: nothing more for the form to show.
 */
export async function submitSurvey(
  handoffs: Handoffs,
  inv: Invocation,
  ticketId: string,
  values: Record<string, string>,
): Promise<FormResult> {
  const score = values.rating ?? '';
  if (!SCORES.some((s) => s.value === score)) return { ok: false, errors: { rating: 'Pick a rating from 1 to 5.' } };
  await handoffs.rate(inv, `${ticketId}:${score}`, values.comment);
  return { ok: true, shown: true };
}
