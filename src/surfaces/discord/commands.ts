/**
 * The slash commands, generated from core's catalogue (COMMAND_SPECS) so Discord mirrors the one
 * grammar, and the way back: an interaction's options rendered as the grammar's argument string.
 */
import {
  SlashCommandBuilder,
  type SlashCommandSubcommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { COMMAND_SPECS, type OptionSpec } from '../../core/commands/grammar';

/** Discord allows 25 choices per option. */
const MAX_CHOICES = 25;

/**
 * `/chatbot set field` has more settings than Discord's 25 choices: these are the ones offered as
 * choices (the most used). The rarer ones (pictures, icons, pop-up and push-to-talk toggles, extra
 * contact and privacy texts) are set with `/chatbot edit`, whose modals hold every field.
 */
export const PREFERRED_SETTING_CHOICES: readonly string[] = [
  'Name', 'Model', 'SystemMessage', 'Temperature', 'AIResponseLanguage', 'TimeZone', 'WelcomeMessage',
  'SuggestedMessage', 'AnswerSuffix', 'ChatBubbleAlign', 'ChatBubbleColor', 'UserMessageColor',
  'UserInputPlaceholder', 'EnableUploadImage', 'TalkToHumanEmail', 'TalkToHumanResponseMessage',
  'SocialPageUrl', 'EmailForDailyLeads', 'RateLimitCount', 'RateLimitTime', 'RateLimitMessage',
  'MessageLimit', 'ChatbotPrivacyPolicyUrl', 'VerifyDomain', 'Domains',
];

function choicesOf(opt: OptionSpec): Array<{ name: string; value: string }> | undefined {
  const all = opt.choices ? [...opt.choices] : undefined;
  if (!all || all.length <= MAX_CHOICES) return all;
  const preferred = all.filter((c) => PREFERRED_SETTING_CHOICES.includes(c.value));
  const rest = all.filter((c) => !PREFERRED_SETTING_CHOICES.includes(c.value));
  return [...preferred, ...rest].slice(0, MAX_CHOICES);
}

function addOptions(builder: SlashCommandBuilder | SlashCommandSubcommandBuilder, options: readonly OptionSpec[]): void {
  // Discord wants required options before optional ones.
  const ordered = [...options.filter((o) => o.required), ...options.filter((o) => !o.required)];
  for (const opt of ordered) {
    const description = opt.description.slice(0, 100);
    if (opt.type === 'integer') {
      builder.addIntegerOption((o) => o.setName(opt.name).setDescription(description).setRequired(opt.required).setMinValue(1));
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

/** The bodies of the bulk overwrite, in catalogue order. */
export function slashCommandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return COMMAND_SPECS.map((spec) => {
    const builder = new SlashCommandBuilder().setName(spec.name).setDescription(spec.summary.slice(0, 100)).setDMPermission(false);
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
