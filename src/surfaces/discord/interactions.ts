/**
 * Interactions in (Events.InteractionCreate): slash commands become core commands with the
 * grammar's argument string, buttons core's actions, a form's controls go to the form flow.
 * Every press and command goes through core (core.command / core.action), which checks who may use
 * it; the surface itself handles only its own controls (form panels, a DM's "New conversation").
 */
import {
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type ModalSubmitInteraction,
} from 'discord.js';
import { COMMAND_SPECS, isCommandName, specOf } from '../../core/commands/catalogue';
import { ANSWER_RETRY_ACTION } from '../../core/conversations/answer-turn';
import type { BridgeCore, CommandName } from '../../core/surface';
import { USER_MESSAGES } from '../../core/user-messages';
import { askPhotosModal, submittedAsk } from './ask-photos';
import { ASK_PHOTOS_OPTION, argsOf } from './commands';
import { parseId } from './custom-ids';
import { NEW_CONVERSATION_ACTION } from './direct-messages';
import type { FormFlow } from './form-flow';
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
import { errInfo } from './responder';
import { answeredPrivately } from './user-install';

/** Commands whose answers everyone in the channel sees; the others answer their invoker only. */
const PUBLIC_COMMANDS = new Set<CommandName>(COMMAND_SPECS.filter((s) => s.answersInChannel).map((s) => s.name));
export class Interactions {
  constructor(
    private readonly inb: Inbound,
    private readonly forms: FormFlow,
  ) {}

  /** The InteractionCreate listener: never throws, every interaction gets an answer. */
  handle(i: Interaction): void {
    this.route(i).catch((err: unknown) => this.inb.log.error({ err: errInfo(err) }, 'discord: interaction failed'));
  }

  private async route(i: Interaction): Promise<void> {
    const core = this.inb.core();
    if (!core) {
      if (i.isRepliable())
        await i.reply({ content: 'The bridge is starting: try again in a moment.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (i.isChatInputCommand()) await this.command(core, i);
    else if (i.isButton()) await this.button(core, i);
    else if (i.isModalSubmit()) await this.modal(i);
    else if (i.isAutocomplete()) await i.respond([]);
  }

  private async command(core: BridgeCore, i: ChatInputCommandInteraction): Promise<void> {
    const name = i.commandName;
    // Offered where its registration says (commands.ts); a stale registration is refused the same way.
    const spec = isCommandName(name) ? specOf(name) : undefined;
    const offered = spec?.userInstall || (!answeredPrivately(i) && (i.inGuild() || spec?.directMessages));
    if (!isCommandName(name) || !offered) {
      await i.reply({ content: `/${name} is not available here.`, flags: MessageFlags.Ephemeral });
      return;
    }
    if (name === 'ask' && i.options.getBoolean(ASK_PHOTOS_OPTION)) {
      // The photos come in a modal (the first response); its submit is the `/ask` (see askWithPhotos).
      await i.showModal(askPhotosModal(i.options.getString('question') ?? ''));
      return;
    }
    const args = argsOf(i, name);
    const responder = responderFor(this.inb, i, !PUBLIC_COMMANDS.has(name));
    await withResponder(this.inb, responder, async () => {
      const place = await placeOf(this.inb, i.guildId, i.channelId, i);
      const actor = await actorFor(this.inb, i);
      await core.command(invocationOf(this.inb, responder, place, actor), name, args);
    });
  }

  private async button(core: BridgeCore, i: ButtonInteraction): Promise<void> {
    const parsed = await parseId(this.inb.store, interactionWorkspace(i), i.customId);
    if (parsed.kind === 'form-group' || parsed.kind === 'form-submit' || parsed.kind === 'form-cancel') {
      await this.forms.onButton(i, parsed);
      return;
    }
    if (parsed.kind !== 'action') {
      await i.reply({ content: 'This button has expired: run the command again.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (answeredPrivately(i)) {
      // A press on a private answer is a new interaction: the conversation goes on through it.
      const continued = await this.inb.port.privately.adopt(
        interactionWorkspace(i),
        i.message.id,
        i.applicationId,
        i.token,
      );
      if (!continued && parsed.action === ANSWER_RETRY_ACTION) {
        // Its answers could reach the person only through an interaction that has ended: say so.
        await i.reply({ content: USER_MESSAGES.privateAnswerEnded, flags: MessageFlags.Ephemeral });
        return;
      }
    }
    const responder = responderFor(this.inb, i, true);
    await withResponder(this.inb, responder, async () => {
      if (parsed.action === NEW_CONVERSATION_ACTION && !i.inGuild()) {
        await this.inb.dms.startOver(i.channelId);
        await responder.reply(plain('New conversation: your next message starts a fresh chat with me.'), false);
        return;
      }
      const place = await placeOf(this.inb, i.guildId, i.channelId, i);
      const actor = await actorFor(this.inb, i);
      await core.action(invocationOf(this.inb, responder, place, actor), parsed.action, parsed.value);
    });
  }

  private async modal(i: ModalSubmitInteraction): Promise<void> {
    const parsed = await parseId(this.inb.store, interactionWorkspace(i), i.customId);
    if (parsed.kind === 'ask-photos') {
      await this.askWithPhotos(i);
      return;
    }
    if (parsed.kind !== 'form-modal') {
      await i.reply({ content: 'This form has expired: run the command again.', flags: MessageFlags.Ephemeral });
      return;
    }
    await this.forms.onModal(i, parsed);
  }

  /** `/ask`'s form: the question with its photos, through core's `/ask` like the command itself. */
  private async askWithPhotos(i: ModalSubmitInteraction): Promise<void> {
    const core = this.inb.core();
    const submitted = submittedAsk(i.components);
    if (!core || !submitted.ok) {
      if (!submitted.ok) this.inb.log.warn({ why: submitted.why }, 'discord: an ask form of an unexpected shape');
      await i.reply({ content: 'This form could not be read: run /ask again.', flags: MessageFlags.Ephemeral });
      return;
    }
    const responder = responderFor(this.inb, i, false);
    await withResponder(this.inb, responder, async () => {
      const place = await placeOf(this.inb, i.guildId, i.channelId ?? '', i);
      const inv = invocationOf(this.inb, responder, place, await actorFor(this.inb, i));
      await core.command({ ...inv, attachments: submitted.photos }, 'ask', submitted.question);
    });
  }
}
