/**
 * The slash commands, generated from core's catalogue (COMMAND_SPECS) so Discord mirrors the one
 * grammar, and the way back: an interaction's options rendered as the grammar's argument string.
 *
 * Guild commands never show in direct messages: the conversation commands (the catalogue's
 * `directMessages`) are also registered globally for the bot's DMs only, so `/ask` there starts a
 * new conversation.
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
import { COMMAND_SPECS, type OptionSpec } from '../../core/commands/catalogue';
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
 * The bodies of a bulk overwrite, in catalogue order: `guild` (every command, in guild channels),
 * `dm` (the DM commands, in the bot's DMs only) or `global` (every command in guilds, the DM
 * commands in DMs too) when the bot is not registered per guild.
 */
export function slashCommandDefinitions(
  scope: 'guild' | 'dm' | 'global' = 'guild',
): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  const specs = scope === 'dm' ? COMMAND_SPECS.filter((s) => s.directMessages) : COMMAND_SPECS;
  return specs.map((spec) => {
    const builder = new SlashCommandBuilder().setName(spec.name).setDescription(spec.summary.slice(0, 100));
    if (scope === 'guild') builder.setDMPermission(false);
    else {
      const contexts =
        scope === 'dm'
          ? [InteractionContextType.BotDM]
          : spec.directMessages
            ? [InteractionContextType.Guild, InteractionContextType.BotDM]
            : [InteractionContextType.Guild];
      builder.setContexts(...contexts).setIntegrationTypes(ApplicationIntegrationType.GuildInstall);
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
    return builder.toJSON();
  });
}

/** The grammar's argument string of a slash command (the subcommand first, then its options). */
export function argsOf(i: ChatInputCommandInteraction, name: CommandName): string {
  const sub = i.options.getSubcommand(false) ?? undefined;
  const raw = sub ? (i.options.data[0]?.options ?? []) : i.options.data;
  const values: Record<string, string | number | boolean | undefined> = {};
  for (const o of raw) if (o.value !== undefined && o.value !== null) values[o.name] = o.value;
  return argsFromOptions(name, sub, values);
}
