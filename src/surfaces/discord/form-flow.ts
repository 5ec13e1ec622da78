/**
 * Core's forms as Discord interactions: one modal when the form fits in one, else a panel with a
 * button per part (each opens that part's modal), Submit and Cancel. Only the user the form was
 * opened for may fill, submit or cancel it; values live in the store between modals (forms.ts), and
 * each modal is built and its submit read in modal.ts.
 */
import type { ButtonInteraction, ModalSubmitInteraction } from 'discord.js';
import type { Actor, FormSpec, Place } from '../../core/surface';
import { newKey, type ParsedId } from './custom-ids';
import { FormSessions, panelOf, type FormSession } from './forms';
import {
  actorFor,
  interactionWorkspace,
  invocationOf,
  placeOf,
  plain,
  responderFor,
  withResponder,
  type Inbound,
} from './inbound';
import { modalOf, submittedValues, typedValue } from './modal';
import type { RenderedMessage } from './render';
import type { Responder } from './responder';

type FormButton = Extract<ParsedId, { kind: 'form-group' | 'form-submit' | 'form-cancel' }>;

function panelMessage(key: string, session: FormSession): RenderedMessage {
  const panel = panelOf(key, session);
  return {
    body: { content: panel.content, embeds: [], components: panel.components, allowed_mentions: { parse: ['users'] } },
    files: [],
  };
}

export class FormFlow {
  private readonly sessions: FormSessions;

  constructor(private readonly inb: Inbound) {
    this.sessions = new FormSessions(inb.store);
  }

  async open(responder: Responder, form: FormSpec, actor: Actor): Promise<void> {
    const key = newKey();
    const session = await this.sessions.create(interactionWorkspace(responder.interaction), key, form, actor.id);
    if (session.chunks.length === 1 && (await responder.showModal(modalOf(key, session, 0, true)))) return;
    await responder.reply(panelMessage(key, session), true);
  }

  /** A panel's buttons: open a part's modal, submit, or cancel. */
  async onButton(i: ButtonInteraction, parsed: FormButton): Promise<void> {
    const session = await this.ownedSession(i, parsed.session);
    if (!session) return;
    if (parsed.kind === 'form-group') {
      await i.showModal(modalOf(parsed.session, session, parsed.chunk, false));
      return;
    }
    if (parsed.kind === 'form-cancel') {
      await this.sessions.delete(interactionWorkspace(i), parsed.session);
      await i.update({ content: `${session.title}: cancelled.`, components: [], embeds: [] });
      return;
    }
    const responder = responderFor(this.inb, i, true);
    await withResponder(this.inb, responder, async () => {
      const place = await placeOf(this.inb, i.guildId, i.channelId, i);
      const actor = await actorFor(this.inb, i);
      await this.submit(responder, parsed.session, session, place, actor, true);
    });
  }

  /** A modal of a part: its values are kept; a single-modal form is submitted at once. */
  async onModal(i: ModalSubmitInteraction, parsed: Extract<ParsedId, { kind: 'form-modal' }>): Promise<void> {
    const session = await this.ownedSession(i, parsed.session);
    if (!session) return;
    const submitted = submittedValues(i.components);
    if (!submitted.ok) {
      this.inb.log.warn({ form: session.formId, why: submitted.why }, 'discord: a modal submit of an unexpected shape');
      await i.reply({ content: `${session.title}: this form could not be read. Try again.`, flags: 64 });
      return;
    }
    for (const name of session.chunks[parsed.chunk]?.names ?? []) {
      const field = session.fields.find((f) => f.name === name);
      const text = submitted.values.texts[name];
      // An empty channel select, or an input the modal did not carry, keeps the earlier value.
      const pick = submitted.values.picks[name];
      if (field?.kind === 'channel') {
        const picked = submitted.values.channels[name];
        if (picked) session.values[name] = picked;
      } else if (pick !== undefined) session.values[name] = pick;
      else if (text !== undefined) session.values[name] = field ? typedValue(field, text) : text;
    }
    if (!session.done.includes(parsed.chunk)) session.done.push(parsed.chunk);
    await this.sessions.save(interactionWorkspace(i), parsed.session, session);
    const responder = responderFor(this.inb, i, true);
    await withResponder(this.inb, responder, async () => {
      if (parsed.submit) {
        const place = await placeOf(this.inb, i.guildId, i.channelId ?? '', i);
        await this.submit(responder, parsed.session, session, place, await actorFor(this.inb, i), false);
        return;
      }
      const panel = panelMessage(parsed.session, session);
      if (!(await responder.update(panel))) await responder.reply(panel, true);
    });
  }

  private async submit(
    responder: Responder,
    key: string,
    session: FormSession,
    place: Place,
    actor: Actor,
    fromPanel: boolean,
  ): Promise<void> {
    const core = this.inb.core();
    if (!core) return;
    const result = await core.submitForm(
      invocationOf(this.inb, responder, place, actor),
      session.formId,
      session.state,
      session.values,
    );
    if (result.ok && result.shown) {
      await this.sessions.delete(interactionWorkspace(responder.interaction), key);
      return;
    }
    if (result.ok) {
      await this.sessions.delete(interactionWorkspace(responder.interaction), key);
      const done = result.message
        ? await this.inb.port.render(result.message, place.workspace)
        : plain(`${session.title}: saved.`);
      if (!fromPanel || !(await responder.update(done))) await responder.reply(done, true);
      return;
    }
    session.errors = result.errors;
    await this.sessions.save(interactionWorkspace(responder.interaction), key, session);
    const panel = panelMessage(key, session);
    this.inb.log.debug({ form: session.formId, fields: Object.keys(result.errors) }, 'discord: form refused');
    if (fromPanel && (await responder.update(panel))) return;
    await responder.reply(panel, true);
  }

  /** The form's session when it still exists and belongs to the presser; else they are told why not. */
  private async ownedSession(
    i: ButtonInteraction | ModalSubmitInteraction,
    key: string,
  ): Promise<FormSession | undefined> {
    const session = await this.sessions.load(interactionWorkspace(i), key);
    if (!session) {
      await i.reply({ content: 'This form has expired: run the command again.', flags: 64 });
      return undefined;
    }
    if (session.userId !== i.user.id) {
      await i.reply({
        content: 'This form belongs to someone else: run the command yourself to get your own.',
        flags: 64,
      });
      return undefined;
    }
    return session;
  }
}
