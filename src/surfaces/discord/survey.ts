/**
 * The satisfaction survey on Discord: the rating prompt after a close carries core's 1-5 buttons,
 * which Discord shows as one "Rate the help" button instead; core answers its press with the survey
 * form (core/handoff/survey.ts), a modal with a radio group 1-5 and an optional comment (modal.ts).
 */
import { HANDOFF_ACTIONS } from '../../core/handoff/model';
import type { OutMessage } from '../../core/surface';

/** The rating buttons of a prompt (values `ticket:score`) as the one button that opens the survey. */
export function asSurvey(msg: OutMessage): OutMessage {
  const rating = msg.buttons?.filter((b) => b.action === HANDOFF_ACTIONS.rate) ?? [];
  if (rating.length === 0) return msg;
  const ticketId = rating[0]!.value.split(':')[0] ?? '';
  return {
    ...msg,
    buttons: [
      ...(msg.buttons ?? []).filter((b) => b.action !== HANDOFF_ACTIONS.rate),
      { action: HANDOFF_ACTIONS.survey, label: 'Rate the help', value: ticketId, style: 'primary' },
    ],
  };
}
