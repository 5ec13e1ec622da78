/**
 * The one command grammar every surface shares: tokenizing an argument string into bare words and
 * `key:value` pairs, validating them, and the reverse (typed options rendered as the text a user
 * would type). What the commands are is the catalogue's (catalogue.ts).
 */
import type { z } from 'zod';
import { UserFacingError } from '../user-messages';
import { type CommandName, specOf } from './catalogue';

/** A bad argument: the message names what was wrong; `usage` is the command's usage text. */
export class UsageError extends UserFacingError {
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

  override userText(): string {
    return this.render();
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
