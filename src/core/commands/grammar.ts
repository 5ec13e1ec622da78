/**
 * The one command grammar every surface shares: tokenizing an argument string, the usage texts,
 * and the catalogue of commands (COMMAND_SPECS). Everything that lists commands derives from the
 * catalogue: Slack's command listeners (and the manifest, checked by test/manifest.test.ts), Discord's
 * slash command registration, the shell's command list and help, and core's "not available" reply.
 */
import type { z } from 'zod';
import { SETTING_FIELDS } from '../../service/schemas/settings';
import type { CommandName } from '../surface';

/** A bad argument: the message names what was wrong; `usage` is the command's usage text. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }

  /** What the user sees: the problem, then how to call the command. */
  render(): string {
    return `${this.message}\n\n${this.usage}`;
  }
}

export interface Token {
  /** `key` of a `key:value` token (as typed); absent for a bare word. */
  key?: string;
  /** The value with quotes removed (the whole token for a bare word). */
  value: string;
}

const KEY = /^[A-Za-z][A-Za-z0-9_]*$/;
// Slack and macOS turn straight quotes into typographic ones; both mean the same to a user.
const OPEN_QUOTES = new Set(['"', '\u201c', '\u201e']);
const CLOSE_QUOTE: Record<string, string[]> = {
  '"': ['"'],
  '\u201c': ['\u201d', '"'],
  '\u201e': ['\u201d', '\u201c', '"'],
};

/**
 * Splits an argument string into tokens. Whitespace separates tokens, except inside double quotes
 * (`city:"New York"`, `"New York"`); `\"` and `\\` escape inside quotes. `key:value` becomes a keyed
 * token when `key` is a plain identifier and the value does not start with `//` (so a bare URL stays
 * one value). An unterminated quote runs to the end of the input.
 */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    while (i < n && /\s/.test(input[i] ?? '')) i++;
    if (i >= n) break;
    let text = '';
    let quoted = false;
    let keyEnd = -1;
    while (i < n && !/\s/.test(input[i] ?? '')) {
      const ch = input[i] ?? '';
      if (OPEN_QUOTES.has(ch)) {
        quoted = true;
        const closers = CLOSE_QUOTE[ch] ?? ['"'];
        i++;
        while (i < n && !closers.includes(input[i] ?? '')) {
          if (input[i] === '\\' && (input[i + 1] === '"' || input[i + 1] === '\\')) i++;
          text += input[i];
          i++;
        }
        i++; // the closing quote
        continue;
      }
      if (ch === ':' && keyEnd < 0 && !quoted) keyEnd = text.length;
      text += ch;
      i++;
    }
    if (keyEnd > 0) {
      const key = text.slice(0, keyEnd);
      const value = text.slice(keyEnd + 1);
      if (KEY.test(key) && !value.startsWith('//')) {
        tokens.push({ key, value });
        continue;
      }
    }
    tokens.push({ value: text });
  }
  return tokens;
}

/** Quotes a value for the grammar when it needs it (spaces, quotes, empty). */
export function quote(value: string): string {
  if (value !== '' && !/[\s"\u201c\u201d\u201e\\]/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The first bare word and the raw rest of the line (for `set <Field> <value with spaces>`). */
export function splitHead(input: string): { head: string; rest: string } {
  const trimmed = input.trim();
  const m = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  if (!m) return { head: '', rest: '' };
  return { head: m[1] ?? '', rest: (m[2] ?? '').trim() };
}

/** A rest-of-line value: one quoted token is unquoted, anything else is taken as typed. */
export function restValue(rest: string): string {
  const tokens = tokenize(rest);
  const only = tokens[0];
  if (tokens.length === 1 && only && only.key === undefined && /^["\u201c\u201e]/.test(rest.trim())) return only.value;
  return rest.trim();
}

export function isHelp(args: string): boolean {
  return /^(help|-h|--help|\?)$/i.test(args.trim());
}

/**
 * Validates `input` with `schema`; a failure becomes a UsageError naming each bad argument.
 * `label` maps a schema path to what the user typed (e.g. `page` -> `page:`).
 */
export function parseArgs<S extends z.ZodTypeAny>(schema: S, input: unknown, usage: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as z.output<S>;
  throw new UsageError(describeIssues(result.error), usage);
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      return `${where}${issue.message}`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------------------------

export type OptionType = 'string' | 'integer' | 'boolean';

export interface OptionSpec {
  /** The option's name (Discord option name; the `key` of `key:value` in the text grammar). */
  name: string;
  description: string;
  type: OptionType;
  required: boolean;
  choices?: ReadonlyArray<{ name: string; value: string }>;
  /**
   * Written as a bare value in the text grammar (in order), not as `name:value`
   * (e.g. `/chatbot set <field> <value>`, `/ask <question>`).
   */
  positional?: boolean;
}

export interface SubcommandSpec {
  name: string;
  description: string;
  options: readonly OptionSpec[];
}

export interface CommandSpec {
  name: CommandName;
  /** One line: what it does (Slack manifest `description`, Discord description, shell help; <= 100 chars). */
  summary: string;
  /** Short usage hint (Slack manifest `usage_hint`). */
  usageHint: string;
  /** The full usage, shown for `help` and bad arguments. */
  usage: string;
  adminOnly: boolean;
  /**
   * Whether its answers are for the whole channel (a question's thread, a listings page) rather than
   * for the invoker alone; a surface that must choose before core answers (Discord's deferred reply) reads it.
   */
  answersInChannel: boolean;
  /**
   * Whether it is also offered in a direct message with the bot (a DM is one conversation: a new
   * question, or a human for it); the other commands need a channel.
   */
  directMessages: boolean;
  /** Options of a command without subcommands. */
  options: readonly OptionSpec[];
  /** Subcommands (Discord subcommands); empty for a flat command. */
  subcommands: readonly SubcommandSpec[];
}

const SALE_TYPE_CHOICES = [
  { name: 'for sale', value: 'for_sale' },
  { name: 'for rent', value: 'for_rent' },
] as const;

const KEY_OPTIONS: readonly OptionSpec[] = [
  { name: 'id', description: 'Listing id', type: 'string', required: false },
  { name: 'mls', description: 'MLS number', type: 'string', required: false },
  { name: 'url', description: 'Listing URL', type: 'string', required: false },
];

const FIELDS_OPTION: OptionSpec = {
  name: 'fields',
  description: 'Field:value pairs (leave empty to open a form)',
  type: 'string',
  required: false,
  positional: true,
};

const USAGE: Record<CommandName, string> = {
  ask: ['Usage: /ask <question>', 'Starts a conversation in a new thread; reply in the thread to continue it.'].join(
    '\n',
  ),
  listings: [
    'Usage: /listings [city:<City>] [type:for_sale|for_rent] [mls:<MLS>] [page:<n>]',
    'Lists the chatbot\'s listings, 5 per page. Quote values with spaces: city:"San Antonio".',
    'Example: /listings city:Austin type:for_sale',
  ].join('\n'),
  listing: [
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
  ].join('\n'),
  chatbot: [
    'Usage: (admins)',
    '  /chatbot show                 the settings the bridge last applied, and the /v1 record',
    '  /chatbot set <Field> <value>  change one setting, e.g. /chatbot set Temperature 1',
    '  /chatbot edit                 a form of every setting',
    '  /chatbot models               the models available for Model',
    '  /chatbot list                 the chatbots of the /v1 API',
    '  /chatbot create <name>        create a /v1 chatbot',
    'Values: integers (Temperature 1), yes/no (EnableUploadImage yes), colours rgb(r,g,b), Model by name or key.',
  ].join('\n'),
  handoff: [
    'Usage: /handoff [reason] | /handoff cancel | /handoff queue',
    'Hands the current conversation to a human; cancel gives it back to the bot; queue lists the open tickets (handoff channel members and admins).',
  ].join('\n'),
  analytics: [
    'Usage: /analytics [from] [to]   (admins)',
    'Dates are YYYY-MM-DD; default: the last 30 days. Example: /analytics 2024-01-01 2024-01-31',
  ].join('\n'),
  history: [
    'Usage: /history [user id | conversation id]   (admins)',
    "A user's conversations, or one conversation's transcript; no argument: your own conversations.",
    'Be explicit with user:<id> or conversation:<id>.',
  ].join('\n'),
};

export function usageOf(name: CommandName): string {
  return USAGE[name];
}

export const COMMAND_SPECS: readonly CommandSpec[] = [
  {
    name: 'ask',
    summary: 'Ask the chatbot; the answer streams into a new thread',
    usageHint: '<question>',
    usage: USAGE.ask,
    adminOnly: false,
    answersInChannel: true,
    directMessages: true,
    options: [{ name: 'question', description: 'Your question', type: 'string', required: true, positional: true }],
    subcommands: [],
  },
  {
    name: 'listings',
    summary: 'Browse listings as cards with paging buttons',
    usageHint: '[city:<City>] [type:for_sale|for_rent] [mls:<MLS>] [page:<n>]',
    usage: USAGE.listings,
    adminOnly: false,
    answersInChannel: true,
    directMessages: false,
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
    usage: USAGE.listing,
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
    usageHint: 'show | set <Field> <value> | edit | models | list | create <name>',
    usage: USAGE.chatbot,
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
    ],
  },
  {
    name: 'handoff',
    summary: 'Hand your conversation to a human',
    usageHint: '[reason]',
    usage: USAGE.handoff,
    adminOnly: false,
    answersInChannel: false,
    directMessages: true,
    options: [
      { name: 'reason', description: 'Why you need a human', type: 'string', required: false, positional: true },
    ],
    subcommands: [],
  },
  {
    name: 'analytics',
    summary: 'Conversation analytics with a chart (admins)',
    usageHint: '[from YYYY-MM-DD] [to YYYY-MM-DD]',
    usage: USAGE.analytics,
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
    usage: USAGE.history,
    adminOnly: true,
    answersInChannel: false,
    directMessages: false,
    options: [
      { name: 'id', description: 'User id or conversation id', type: 'string', required: false, positional: true },
    ],
    subcommands: [],
  },
];

/** The commands' names, in catalogue order (`ask` first). */
export const COMMAND_NAMES: readonly CommandName[] = COMMAND_SPECS.map((s) => s.name);

export function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

/** One help line per command: `/name usage-hint` then what it does (the shell's /help). */
export function commandHelpLines(indent = '  '): string[] {
  return COMMAND_SPECS.map((s) => `${indent}/${s.name} ${s.usageHint}\n${indent}    ${s.summary}`);
}

export function specOf(name: CommandName): CommandSpec {
  const spec = COMMAND_SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`no command spec for ${name}`);
  return spec;
}

/**
 * Renders structured options (Discord slash command options) as the text grammar, so a surface
 * with typed options hands core the same argument string a typed command would.
 * Keyed options come first (`name:value`, so a listing key precedes its field pairs), then the
 * positional ones in spec order, as typed.
 */
export function argsFromOptions(
  name: CommandName,
  subcommand: string | undefined,
  values: Record<string, string | number | boolean | undefined>,
): string {
  const spec = specOf(name);
  const options = subcommand ? (spec.subcommands.find((s) => s.name === subcommand)?.options ?? []) : spec.options;
  const parts: string[] = subcommand ? [subcommand] : [];
  for (const opt of options.filter((o) => !o.positional)) {
    const v = values[opt.name];
    if (v === undefined || v === '') continue;
    parts.push(`${opt.name}:${quote(String(v))}`);
  }
  for (const opt of options.filter((o) => o.positional)) {
    const v = values[opt.name];
    if (v === undefined || v === '') continue;
    // Free text (a question, field pairs, a setting value, a name) passes through as typed.
    parts.push(String(v));
  }
  return parts.join(' ');
}
