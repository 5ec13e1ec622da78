/**
 * The slash commands, generated from core's catalogue (COMMAND_SPECS) so Discord mirrors the one
 * grammar, and the way back: an interaction's options rendered as the grammar's argument string.
 *
 * Where each is offered is said by `integration_types` (0: the app installed in a server, 1: a person
 * installed it for themselves) and `contexts` (0: a server, 1: the bot's DMs, 2: group DMs and DMs
 * between others). The catalogue's `userInstall` commands (`/ask`, `/listings`) are global with both
 * installs and every context, so someone who installed the app can use them in any server or DM;
 * the conversation commands (`directMessages`) are offered in the bot's DMs too; everything else
 * (admin, handoff) stays with a server install, in servers. Guild commands can carry neither field
 * and never show in DMs: with DISCORD_GUILD_ID the server gets the others as guild commands and the
 * global ones are registered beside them (never twice under one name in that server).
 */
import {
  ApplicationIntegrationType,
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type SlashCommandSubcommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { argsFromOptions } from '../../core/commands/grammar';
import { COMMAND_SPECS, type CommandSpec, type OptionSpec } from '../../core/commands/catalogue';
import type { CommandName } from '../../core/surface';

/** Discord allows 25 choices per option. */
const MAX_CHOICES = 25;

/**
 * `/chatbot set field` has more settings than Discord's 25 choices: these are the ones offered as
 * choices (the most used). The rarer ones (pictures, icons, pop-up and push-to-talk toggles, extra
 * contact and privacy texts) are set with `/chatbot edit`, whose modals hold every field.
 */
export const PREFERRED_SETTING_CHOICES: readonly string[] = [
  'Name',
  'Model',
  'SystemMessage',
  'Temperature',
  'AIResponseLanguage',
  'TimeZone',
  'WelcomeMessage',
  'SuggestedMessage',
  'AnswerSuffix',
  'ChatBubbleAlign',
  'ChatBubbleColor',
  'UserMessageColor',
  'UserInputPlaceholder',
  'EnableUploadImage',
  'TalkToHumanEmail',
  'TalkToHumanResponseMessage',
  'SocialPageUrl',
  'EmailForDailyLeads',
  'RateLimitCount',
  'RateLimitTime',
  'RateLimitMessage',
  'MessageLimit',
  'ChatbotPrivacyPolicyUrl',
  'VerifyDomain',
  'Domains',
];

function choicesOf(opt: OptionSpec): Array<{ name: string; value: string }> | undefined {
  const all = opt.choices ? [...opt.choices] : undefined;
  if (!all || all.length <= MAX_CHOICES) return all;
  const preferred = all.filter((c) => PREFERRED_SETTING_CHOICES.includes(c.value));
  const rest = all.filter((c) => !PREFERRED_SETTING_CHOICES.includes(c.value));
  return [...preferred, ...rest].slice(0, MAX_CHOICES);
}

function addOptions(
  builder: SlashCommandBuilder | SlashCommandSubcommandBuilder,
  options: readonly OptionSpec[],
): void {
  // Discord wants required options before optional ones.
  const ordered = [...options.filter((o) => o.required), ...options.filter((o) => !o.required)];
  for (const opt of ordered) {
    const description = opt.description.slice(0, 100);
    if (opt.type === 'integer') {
      builder.addIntegerOption((o) =>
        o.setName(opt.name).setDescription(description).setRequired(opt.required).setMinValue(1),
      );
    } else if (opt.type === 'boolean') {
      builder.addBooleanOption((o) => o.setName(opt.name).setDescription(description).setRequired(opt.required));
    } else {
      builder.addStringOption((o) => {
        o.setName(opt.name).setDescription(description).setRequired(opt.required);
        const choices = choicesOf(opt);
        if (choices) o.addChoices(...choices.map((c) => ({ name: c.name.slice(0, 100), value: c.value })));
        return o;
      });
    }
  }
}

/**
 * `/ask photos:True`: Discord's own extra (not in the grammar): the question opens a form with a
 * File Upload for photos (ask-photos.ts) instead of being asked at once.
 */
export const ASK_PHOTOS_OPTION = 'photos';

const GUILD = InteractionContextType.Guild;
const BOT_DM = InteractionContextType.BotDM;
const PRIVATE = InteractionContextType.PrivateChannel;

/** Where a global command is offered: by which installs, in which contexts. */
function reach(
  spec: CommandSpec,
  scope: 'dm' | 'global',
): { installs: ApplicationIntegrationType[]; contexts: InteractionContextType[] } {
  if (spec.userInstall)
    return {
      installs: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
      contexts: [GUILD, BOT_DM, PRIVATE],
    };
  const contexts = scope === 'dm' ? [BOT_DM] : spec.directMessages ? [GUILD, BOT_DM] : [GUILD];
  return { installs: [ApplicationIntegrationType.GuildInstall], contexts };
}

/**
 * The bodies of a bulk overwrite, in catalogue order: `guild` (the commands of one server: all but
 * the user-installable ones), `dm` (registered globally beside them: the user-installable commands
 * everywhere, the other DM commands in the bot's DMs only) or `global` (every command, when the bot
 * is not registered per guild).
 */
export function slashCommandDefinitions(
  scope: 'guild' | 'dm' | 'global' = 'guild',
): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  const specs =
    scope === 'dm'
      ? COMMAND_SPECS.filter((s) => s.directMessages || s.userInstall)
      : scope === 'guild'
        ? COMMAND_SPECS.filter((s) => !s.userInstall)
        : COMMAND_SPECS;
  return specs.map((spec) => {
    const builder = new SlashCommandBuilder().setName(spec.name).setDescription(spec.summary.slice(0, 100));
    if (scope === 'guild') builder.setDMPermission(false);
    else {
      const { installs, contexts } = reach(spec, scope);
      builder.setContexts(...contexts).setIntegrationTypes(...installs);
    }
    if (spec.subcommands.length > 0) {
      for (const sub of spec.subcommands) {
        builder.addSubcommand((s) => {
          s.setName(sub.name).setDescription(sub.description.slice(0, 100));
          addOptions(s, sub.options);
          return s;
        });
      }
    } else {
      addOptions(builder, spec.options);
    }
    if (spec.name === 'ask')
      builder.addBooleanOption((o) =>
        o.setName(ASK_PHOTOS_OPTION).setDescription('Attach photos to the question (opens a form)').setRequired(false),
      );
    return builder.toJSON();
  });
}

/** The grammar's argument string of a slash command (the subcommand first, then its options). */
export function argsOf(i: ChatInputCommandInteraction, name: CommandName): string {
  const sub = i.options.getSubcommand(false) ?? undefined;
  const raw = sub ? (i.options.data[0]?.options ?? []) : i.options.data;
  const values: Record<string, string | number | boolean | undefined> = {};
  for (const o of raw)
    if (o.value !== undefined && o.value !== null && !(name === 'ask' && o.name === ASK_PHOTOS_OPTION))
      values[o.name] = o.value;
  return argsFromOptions(name, sub, values);
}
