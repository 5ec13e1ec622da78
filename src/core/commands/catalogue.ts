/**
 * The one command catalogue: every slash command's name, usage, summary, who may run it and its
 * options, in one `as const` table. Everything that lists or describes commands derives from it:
 * the `CommandName` union (core/surface.ts), the usage shown for `help` and bad arguments, the admin
 * check (core/access.ts), Slack's command listeners and manifest (checked by test/manifest.test.ts),
 * Discord's slash command registration, the shell's command list and help. Handlers
 * (commands/*.ts) carry only what a command does.
 *
 * A new command or subcommand is one entry here (its usage lines, and its options for Discord).
 */
import { HANDOFF_RULE_NAMES } from '../handoff/rule-names';
import { SETTING_FIELDS } from '../../service/schemas/settings';

export type OptionType = 'string' | 'integer' | 'boolean';

export interface OptionSpec {
  /** The option's name (Discord option name; the `key` of `key:value` in the text grammar). */
  readonly name: string;
  readonly description: string;
  readonly type: OptionType;
  readonly required: boolean;
  readonly choices?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  /**
   * Written as a bare value in the text grammar (in order), not as `name:value`
   * (e.g. `/chatbot set <field> <value>`, `/ask <question>`).
   */
  readonly positional?: boolean;
}

export interface SubcommandSpec {
  readonly name: string;
  readonly description: string;
  readonly options: readonly OptionSpec[];
}

/** One entry of the table, as written. */
interface CommandEntry {
  readonly name: string;
  /** One line: what it does (Slack manifest `description`, Discord description, shell help; <= 100 chars). */
  readonly summary: string;
  /** Short usage hint (Slack manifest `usage_hint`). */
  readonly usageHint: string;
  /** The full usage, one line each, shown for `help` and bad arguments. */
  readonly usageLines: readonly string[];
  /** Only surfaces' admins may run it, press its buttons or submit its forms (subcommands may check further). */
  readonly adminOnly: boolean;
  /**
   * Whether its answers are for the whole channel (a question's thread, a listings page) rather than
   * for the invoker alone; a surface that must choose before core answers (Discord's deferred reply) reads it.
   */
  readonly answersInChannel: boolean;
  /**
   * Whether it is also offered in a direct message with the bot (a DM is one conversation: a new
   * question, or a human for it); the other commands need a channel.
   */
  readonly directMessages: boolean;
  /**
   * Whether a person may install the app for themselves and run it wherever they are (Discord's
   * user install): its answers are then theirs alone. Only commands that need nothing of the place.
   */
  readonly userInstall?: boolean;
  /** Options of a command without subcommands. */
  readonly options: readonly OptionSpec[];
  /** Subcommands (Discord subcommands); empty for a flat command. */
  readonly subcommands: readonly SubcommandSpec[];
}

const SALE_TYPE_CHOICES = [
  { name: 'for sale', value: 'for_sale' },
  { name: 'for rent', value: 'for_rent' },
] as const;

const KEY_OPTIONS = [
  { name: 'id', description: 'Listing id', type: 'string', required: false },
  { name: 'mls', description: 'MLS number', type: 'string', required: false },
  { name: 'url', description: 'Listing URL', type: 'string', required: false },
] as const satisfies readonly OptionSpec[];

const FIELDS_OPTION = {
  name: 'fields',
  description: 'Field:value pairs (leave empty to open a form)',
  type: 'string',
  required: false,
  positional: true,
} as const satisfies OptionSpec;

const COMMANDS = [
  {
    name: 'ask',
    summary: 'Ask the chatbot; the answer streams into a new thread',
    usageHint: '<question>',
    usageLines: [
      'Usage: /ask <question>',
      'Starts a conversation in a new thread; reply in the thread to continue it (no mention needed).',
      'Attach images, a WAV recording or a video to a thread message to ask about them.',
      'Example: /ask Which 3-bedroom homes are for sale in Austin?',
    ],
    adminOnly: false,
    answersInChannel: true,
    directMessages: true,
    userInstall: true,
    options: [{ name: 'question', description: 'Your question', type: 'string', required: true, positional: true }],
    subcommands: [],
  },
  {
    name: 'listings',
    summary: 'Browse listings as cards with paging buttons',
    usageHint: '[city:<City>] [type:for_sale|for_rent] [mls:<MLS>] [page:<n>]',
    usageLines: [
      'Usage: /listings [city:<City>] [type:for_sale|for_rent] [mls:<MLS>] [page:<n>]',
      'Lists the chatbot\'s listings, 5 per page. Quote values with spaces: city:"San Antonio".',
      'Example: /listings city:Austin type:for_sale',
    ],
    adminOnly: false,
    answersInChannel: true,
    directMessages: false,
    userInstall: true,
    options: [
      { name: 'city', description: 'City', type: 'string', required: false },
      { name: 'type', description: 'Sale type', type: 'string', required: false, choices: SALE_TYPE_CHOICES },
      { name: 'mls', description: 'MLS number', type: 'string', required: false },
      { name: 'page', description: 'Page number', type: 'integer', required: false },
    ],
    subcommands: [],
  },
  {
    name: 'listing',
    summary: 'Show one listing; create, update or delete one (admins)',
    usageHint: 'show|create|update|delete [id:<id>|mls:<MLS>|url:<URL>] [Field:value ...]',
    usageLines: [
      'Usage:',
      '  /listing show id:<ListingId> | mls:<MLS> | url:<URL>',
      '  /listing create [Field:value ...]              (admins; no pairs opens a form)',
      '  /listing update id:<ListingId>|mls:<MLS>|url:<URL> [Field:value ...]   (admins; no pairs opens a form)',
      '  /listing delete id:<ListingId>|mls:<MLS>|url:<URL>                     (admins; asks to confirm)',
      'Fields: SaleType (for_sale|for_rent), Status (Active|PreOnMarket|Sold), CurrencySymbol, PropertyType,',
      '  Bedrooms, Bathrooms, Url, MLSNumber, YearBuilt, DaysOnMarket, LotArea, BuildingArea,',
      '  AreaUnit ("Square Feet"|"Square Meters"), ParkingSpots (required on create); Images (comma-separated URLs),',
      '  Tours (OpenHouse|3D), Description, ExtensionColumn (Key=value;Key=value), Location, Address, City, State, ZIP,',
      '  Latitude, Longitude, SalePrice, UnitAreaPrice, HOAMonth, EstimatePrice, RentPrice,',
      '  SpaceType ("Entire place"|Room), DepositFee.',
      'Example: /listing update mls:TX-1001 Status:Sold SalePrice:512000',
    ],
    adminOnly: false,
    answersInChannel: false,
    directMessages: false,
    options: [],
    subcommands: [
      { name: 'show', description: 'Show one listing', options: KEY_OPTIONS },
      { name: 'create', description: 'Create a listing (admins)', options: [FIELDS_OPTION] },
      { name: 'update', description: 'Update a listing (admins)', options: [...KEY_OPTIONS, FIELDS_OPTION] },
      { name: 'delete', description: 'Delete a listing (admins)', options: KEY_OPTIONS },
    ],
  },
  {
    name: 'chatbot',
    summary: "The chatbot's settings, models and /v1 chatbots (admins)",
    usageHint:
      'show | set <Field> <value> | edit | models | list | create <name> | connect | disconnect | hours [<hours>]',
    usageLines: [
      'Usage: (admins)',
      '  /chatbot show                 the settings the bridge last applied, and the /v1 record',
      '  /chatbot set <Field> <value>  change one setting, e.g. /chatbot set Temperature 1',
      '  /chatbot edit                 a form of every setting',
      '  /chatbot models               the models available for Model',
      '  /chatbot list                 the chatbots of the /v1 API',
      '  /chatbot create <name>        create a /v1 chatbot',
      "  /chatbot connect              this workspace's own chatbot (id and keys, checked) and handoff channel",
      "  /chatbot disconnect           remove this workspace's chatbot keys (back to the deployment's chatbot)",
      "  /chatbot hours [<hours>]      this workspace's office hours: show, set (Mon-Fri 09:00-17:00, Sat 10:00-14:00),",
      "                                always (open around the clock) or default (the deployment's HANDOFF_HOURS)",
      "  /chatbot hours leads <hour>   the hour (0-23, office time) of the day's leads e-mail, or default",
      'Values: integers (Temperature 1), yes/no (EnableUploadImage yes), colours rgb(r,g,b), Model by name or key.',
    ],
    adminOnly: true,
    answersInChannel: false,
    directMessages: false,
    options: [],
    subcommands: [
      { name: 'show', description: 'Settings last applied and the /v1 record', options: [] },
      {
        name: 'set',
        description: 'Change one setting',
        options: [
          {
            name: 'field',
            description: 'Setting name',
            type: 'string',
            required: true,
            positional: true,
            choices: SETTING_FIELDS.map((f) => ({ name: f.name, value: f.name })),
          },
          { name: 'value', description: 'New value', type: 'string', required: true, positional: true },
        ],
      },
      { name: 'edit', description: 'Edit every setting in a form', options: [] },
      { name: 'models', description: 'List the available models', options: [] },
      { name: 'list', description: 'List the /v1 chatbots', options: [] },
      {
        name: 'create',
        description: 'Create a /v1 chatbot',
        options: [{ name: 'name', description: 'Chatbot name', type: 'string', required: true, positional: true }],
      },
      { name: 'connect', description: "Connect this workspace's own chatbot and handoff channel", options: [] },
      { name: 'disconnect', description: "Remove this workspace's chatbot keys", options: [] },
      {
        name: 'hours',
        description: "Show or set this workspace's office hours",
        options: [
          {
            name: 'hours',
            description: 'e.g. Mon-Fri 09:00-17:00, Sat 10:00-14:00; always; default; leads 7 (the leads e-mail hour)',
            type: 'string',
            required: false,
            positional: true,
          },
        ],
      },
    ],
  },
  {
    name: 'handoff',
    summary: 'Hand your conversation to a human',
    usageHint: '[reason]',
    usageLines: [
      'Usage: /handoff [reason]   hand the current conversation to a human',
      '       /handoff cancel     give it back to the bot',
      '       /handoff queue      the open tickets (members of the handoff channel and admins)',
      '       /handoff away       (agents) new tickets are not offered to you (round-robin)',
      '       /handoff back       (agents) you are available again',
      "       /handoff settings   (admins) this office's handoff rules; /handoff settings <name> <value>|default",
      `                           changes one for this office: ${HANDOFF_RULE_NAMES.join(', ')}`,
      'In a conversation thread it hands off that thread; in a channel, your most recent conversation there.',
    ],
    adminOnly: false,
    answersInChannel: false,
    directMessages: true,
    options: [
      { name: 'reason', description: 'Why you need a human', type: 'string', required: false, positional: true },
      // Discord cannot mix a subcommand with `reason`: `/handoff settings` is these two options there.
      {
        name: 'setting',
        description: "(admins) Change one of this office's handoff settings (with value)",
        type: 'string',
        required: false,
        choices: HANDOFF_RULE_NAMES.map((n) => ({ name: n, value: n })),
      },
      { name: 'value', description: "The setting's new value, or default", type: 'string', required: false },
    ],
    subcommands: [],
  },
  {
    name: 'analytics',
    summary: 'Conversation analytics with a chart (admins)',
    usageHint: '[from YYYY-MM-DD] [to YYYY-MM-DD]',
    usageLines: [
      'Usage: /analytics [from] [to]   (admins)',
      'Dates are YYYY-MM-DD; default: the last 30 days. Example: /analytics 2024-01-01 2024-01-31',
    ],
    adminOnly: true,
    answersInChannel: false,
    directMessages: false,
    options: [
      { name: 'from', description: 'Start date YYYY-MM-DD', type: 'string', required: false, positional: true },
      { name: 'to', description: 'End date YYYY-MM-DD', type: 'string', required: false, positional: true },
    ],
    subcommands: [],
  },
  {
    name: 'history',
    summary: "A user's conversations or one transcript (admins)",
    usageHint: '[user id | conversation id]',
    usageLines: [
      'Usage: /history [user id | conversation id]   (admins)',
      "A user's conversations, or one conversation's transcript; no argument: your own conversations.",
      'Be explicit with user:<id> or conversation:<id>.',
    ],
    adminOnly: true,
    answersInChannel: false,
    directMessages: false,
    options: [
      { name: 'id', description: 'User id or conversation id', type: 'string', required: false, positional: true },
    ],
    subcommands: [],
  },
] as const satisfies readonly CommandEntry[];

/** Every slash command's name: the one list (BridgeCore.command takes these). */
export type CommandName = (typeof COMMANDS)[number]['name'];

/** A command as surfaces and core read it. */
export interface CommandSpec extends Omit<CommandEntry, 'name' | 'usageLines'> {
  readonly name: CommandName;
  /** The full usage, shown for `help` and bad arguments. */
  readonly usage: string;
}

/** The catalogue, in order (`ask` first). */
export const COMMAND_SPECS: readonly CommandSpec[] = COMMANDS.map(({ usageLines, ...entry }) => ({
  ...entry,
  usage: usageLines.join('\n'),
}));

/** The commands' names, in catalogue order. */
export const COMMAND_NAMES: readonly CommandName[] = COMMAND_SPECS.map((s) => s.name);

export function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

export function specOf(name: CommandName): CommandSpec {
  const spec = COMMAND_SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`no command spec for ${name}`);
  return spec;
}

/** The command's full usage (for `help` and bad arguments). */
export function usageOf(name: CommandName): string {
  return specOf(name).usage;
}

/** One help line per command: `/name usage-hint` then what it does (the shell's /help). */
export function commandHelpLines(indent = '  '): string[] {
  return COMMAND_SPECS.map((s) => `${indent}/${s.name} ${s.usageHint}\n${indent}    ${s.summary}`);
}
