import { requestTenant } from '../../core/tenants/tenant';
import { randomUUID } from 'crypto';
import { basename } from 'path';
import * as readline from 'readline';
import type { Readable, Writable } from 'stream';
import { COMMAND_NAMES, COMMAND_SPECS, commandHelpLines, isCommandName } from '../../core/commands/catalogue';
import type {
  Actor,
  BridgeCore,
  BridgeRequest,
  FormSpec,
  Invocation,
  MessageRef,
  OutMessage,
  Place,
} from '../../core/surface';
import { SHELL_HANDOFF_CHANNEL, type ShellSurface } from './shell-surface';
import { stripControl, terminalSafe } from './render';
import { untrusted } from '../../core/text/untrusted';

/** The shell has no platform maximum for a message: Slack's (40,000 characters) stands in. */
const MAX_TEXT = 40_000;

// The bridge's commands come from the grammar's catalogue; the rest are the shell's own.
const SHELL_HELP = [
  'Commands:',
  ...commandHelpLines(),
  '',
  'In the shell:',
  '  <any text>                  continue the current conversation (or start one)',
  '  /new                        start another conversation with your next message',
  '  /press <n>                  press button n of the last message that had buttons',
  '  /attach <path> [text]       send a file (image, WAV, video) with an optional message',
  '  /agent claim|say <text>|close   act as the human agent on the latest handoff ticket',
  "  /help                       this list; /<command> help for a command's usage",
  '  /quit                       leave',
].join('\n');

/** Every command the prompt knows, for Tab completion: the grammar's catalogue, then the shell's own. */
export const SHELL_COMMANDS: readonly string[] = [
  ...COMMAND_NAMES,
  'new',
  'press',
  'attach',
  'agent',
  'help',
  'quit',
].map((c) => `/${c}`);

/** Subcommands for completion: the catalogue's (plus `/handoff cancel`, a word of its reason), then `/agent`'s. */
const SUBCOMMANDS: Record<string, readonly string[]> = {
  ...Object.fromEntries(
    COMMAND_SPECS.filter((c) => c.subcommands.length > 0).map((c) => [
      `/${c.name}`,
      c.subcommands.map((sub) => sub.name),
    ]),
  ),
  '/handoff': ['cancel', 'queue'],
  '/agent': ['claim', 'say', 'close'],
};

/** readline completer: command names after "/", then a command's subcommands. */
export function completeCommand(line: string): [string[], string] {
  if (!line.startsWith('/')) return [[], line];
  const words = line.split(' ');
  if (words.length === 1) {
    const hits = SHELL_COMMANDS.filter((c) => c.startsWith(line.toLowerCase()));
    // A single hit gets its trailing space, ready for arguments.
    return [hits.length === 1 ? [`${hits[0]} `] : hits, line];
  }
  const subs = SUBCOMMANDS[words[0].toLowerCase()];
  if (!subs || words.length > 2) return [[], line];
  const hits = subs.filter((s) => s.startsWith(words[1].toLowerCase()));
  return [hits.length === 1 ? [`${hits[0]} `] : hits, words[1]];
}

export interface ShellOptions {
  core: BridgeCore;
  surface: ShellSurface;
  input: Readable;
  output: Writable;
  interactive: boolean;
  user?: Actor;
  agent?: Actor;
  /** Resolves when core has no answer in progress: piped input waits for it between lines. */
  idle?: () => Promise<void>;
}

/**
 * The terminal front end, in the spirit of Hubot's shell adapter: lines in, core calls out. Lines are
 * handled one after another (a form reads its answers from the following lines), so piped input
 * behaves exactly like typing.
 */
export class Shell {
  private readonly rl: readline.Interface;
  private readonly lines: AsyncIterator<string>;
  private readonly user: Actor;
  private readonly agent: Actor;
  private readonly surface: ShellSurface;
  private closed = false;

  constructor(private readonly opts: ShellOptions) {
    this.surface = opts.surface;
    this.user = opts.user ?? { id: 'you', name: 'you', isAdmin: true };
    this.agent = opts.agent ?? { id: 'agent', name: 'Agent', isAdmin: true };
    this.rl = readline.createInterface({
      input: opts.input,
      output: opts.interactive ? opts.output : undefined,
      terminal: opts.interactive,
      prompt: opts.interactive ? this.surface.colors.bold('you› ') : '',
      ...(opts.interactive ? { completer: completeCommand } : {}),
    });
    this.lines = this.rl[Symbol.asyncIterator]();
    // readline has just echoed the line (prompt and text, then a new line): the surface must know,
    // since a message it rewrites in place is now that much higher on screen.
    if (opts.interactive) this.rl.on('line', (line) => this.surface.noteSubmitted(`${this.rl.getPrompt()}${line}`));
  }

  /** Hooks for the surface: keep the prompt below whatever is printed. */
  static promptHooks(getShell: () => Shell | undefined) {
    return {
      beforeWrite: () => getShell()?.clearPrompt(),
      afterWrite: () => getShell()?.redrawPrompt(),
    };
  }

  clearPrompt(): void {
    if (!this.opts.interactive || this.closed) return;
    readline.clearLine(this.opts.output, 0);
    readline.cursorTo(this.opts.output, 0);
  }

  redrawPrompt(): void {
    if (!this.opts.interactive || this.closed) return;
    this.rl.prompt(true);
  }

  /** Runs until /quit or the end of input; then waits for answers still streaming. Resolves with the number of lines handled. */
  async run(): Promise<number> {
    let handled = 0;
    this.surface.print(`${this.surface.colors.bold('chatbot-bridge shell')} — type a question, or /help for commands.`);
    this.redrawPrompt();
    for (;;) {
      const next = await this.lines.next();
      if (next.done) break;
      const line = next.value.trim();
      if (line === '/quit' || line === '/exit') break;
      if (line !== '') {
        handled += 1;
        try {
          await this.handle(line);
          // Piped input: answer each line before reading the next, so the transcript reads in order.
          if (!this.opts.interactive) await this.opts.idle?.();
        } catch (err) {
          this.surface.print(this.surface.colors.red(`Error: ${stripControl((err as Error).message)}`));
        }
      }
      this.redrawPrompt();
    }
    await this.drain();
    this.closed = true;
    this.rl.close();
    this.surface.close();
    return handled;
  }

  /** Let answers that are still streaming finish before leaving (piped input ends early). */
  private async drain(): Promise<void> {
    await this.opts.idle?.();
  }

  private async handle(line: string): Promise<void> {
    if (!line.startsWith('/')) return this.say(line, []);
    const [head, ...rest] = line.slice(1).split(/\s+/);
    const args = line.slice(1 + head.length).trim();
    const name = head.toLowerCase();
    if (name === 'help') return this.surface.print(SHELL_HELP);
    if (name === 'new') {
      this.surface.currentThread = undefined;
      return this.surface.print(this.surface.colors.dim('(your next message starts a new conversation)'));
    }
    if (name === 'press') return this.press(rest[0]);
    if (name === 'attach') return this.attach(args);
    if (name === 'agent') return this.agentCommand(args);
    if (isCommandName(name)) return this.opts.core.command(this.invocation(this.user, this.here()), name, args);
    this.surface.print(this.surface.colors.red(`Unknown command /${name}. Type /help for the list.`));
  }

  private here(): Place {
    return this.surface.placeOf(this.surface.currentThread);
  }

  private async say(text: string, attachments: Parameters<BridgeCore['message']>[0]['attachments']) {
    const startsConversation = this.surface.currentThread === undefined;
    if (startsConversation) this.surface.currentThread = this.surface.newThreadId();
    const handled = await this.opts.core.message(
      {
        ...this.request(this.user, this.here()),
        text: untrusted(text, MAX_TEXT),
        id: randomUUID(),
        attachments,
        startsConversation,
      },
      this.surface,
    );
    if (!handled) this.surface.print(this.surface.colors.dim('(nobody is listening in this thread)'));
  }

  private async attach(args: string): Promise<void> {
    const [path, ...words] = args.split(/\s+/);
    if (!path) return this.surface.print('Usage: /attach <path> [text]');
    await this.say(words.join(' '), [{ id: path, url: path, name: basename(path) }]);
  }

  private async press(which: string | undefined): Promise<void> {
    const last = this.surface.lastButtons;
    const index = Number(which) - 1;
    const button = last?.buttons[index];
    if (!last || !button) return this.surface.print('No such button. Usage: /press <number>');
    const place = last.ref.place;
    await this.opts.core.action(this.invocation(this.user, place, last.ref), button.action, button.value);
  }

  /** The human agent's side of a handoff, simulated on the latest ticket in #handoff. */
  private async agentCommand(args: string): Promise<void> {
    const [verb, ...words] = args.split(/\s+/);
    const ticket = this.surface.latestMessage(
      (shown) =>
        shown.ref.place.channel === SHELL_HANDOFF_CHANNEL &&
        (shown.msg.buttons ?? []).some((b) => b.action === 'handoff.claim' || b.action === 'handoff.close'),
    );
    if (!ticket) return this.surface.print('No handoff ticket yet. Hand a conversation off with /handoff.');
    if (verb === 'claim' || verb === 'close') {
      const button = (ticket.msg.buttons ?? []).find((b) => b.action === `handoff.${verb}`);
      if (!button) return this.surface.print(`The ticket has no ${verb} button.`);
      return this.opts.core.action(
        this.invocation(this.agent, ticket.ref.place, ticket.ref),
        button.action,
        button.value,
      );
    }
    if (verb === 'say') {
      const place: Place = ticket.ref.place.thread ? ticket.ref.place : { ...ticket.ref.place, thread: ticket.ref.id };
      await this.opts.core.message(
        {
          ...this.request(this.agent, place),
          text: untrusted(words.join(' '), MAX_TEXT),
          id: randomUUID(),
          attachments: [],
          startsConversation: false,
        },
        this.surface,
      );
      return;
    }
    this.surface.print('Usage: /agent claim | /agent say <text> | /agent close');
  }

  /** Who and where, once per line typed: the shell is its own tenant; the answer is for who typed it. */
  private request(actor: Actor, place: Place): BridgeRequest {
    return {
      tenant: requestTenant(place),
      surface: this.surface,
      place,
      actor,
      for: { id: actor.id, name: actor.name },
    };
  }

  private invocation(actor: Actor, place: Place, source?: MessageRef): Invocation {
    const surface = this.surface;
    return {
      ...this.request(actor, place),
      source,
      reply: async (msg: OutMessage, opts?: { ephemeral?: boolean }) => {
        if (opts?.ephemeral) {
          await surface.notify(place, actor, msg);
          return undefined;
        }
        return surface.post(place, msg);
      },
      update: source ? (msg: OutMessage) => surface.edit(source, msg) : undefined,
      openForm: (form: FormSpec) => this.fillForm(actor, place, form),
    };
  }

  /** A form, asked field by field on the following lines; invalid values are asked again. */
  private async fillForm(actor: Actor, place: Place, form: FormSpec): Promise<void> {
    const c = this.surface.colors;
    this.surface.print(
      c.bold(stripControl(form.title)) +
        c.dim(' — Enter keeps the value in [brackets]; "-" leaves it empty; "/cancel" stops.'),
    );
    const values: Record<string, string> = {};
    let toAsk = form.fields;
    for (let round = 0; round < 5; round += 1) {
      for (const field of toAsk) {
        // Options and the kept value in words; a typed label stands for its option.
        const words = (v: string) => field.options?.find((o) => o.value === v)?.label ?? v;
        const choices = field.options ? ` (${field.options.map((o) => o.label).join(' | ')})` : '';
        const current = values[field.name] ?? field.initial ?? '';
        const hint = !field.options && !current && field.hint ? ` (${field.hint})` : '';
        const shownCurrent = current.includes('\n') ? current.replace(/\n/g, '; ') : words(current);
        // Labels, options and kept values come from the service: stripped before they reach the prompt.
        const prompt = stripControl(
          `${field.label}${field.required ? '*' : ''}${choices}${hint}${current ? ` [${shownCurrent}]` : ''}: `,
        );
        const answer = await this.ask(prompt);
        if (answer === undefined || answer === '/cancel') return this.surface.print(c.dim('(form cancelled)'));
        const squash = (t: string) => t.toLowerCase().replace(/[\s_-]+/g, '');
        const chosen = field.options?.find(
          (o) => squash(o.label) === squash(answer) || squash(o.value) === squash(answer),
        );
        const value = answer === '' ? current : answer === '-' ? '' : (chosen?.value ?? answer);
        if (value !== '') values[field.name] = value;
        else delete values[field.name];
      }
      const result = await this.opts.core.submitForm(this.invocation(actor, place), form.id, form.state, values);
      if (result.ok) {
        if (result.message) await this.surface.post(place, result.message);
        return;
      }
      for (const [field, error] of Object.entries(result.errors))
        this.surface.print(c.red(stripControl(`${field}: ${error}`)));
      const bad = new Set(Object.keys(result.errors));
      toAsk = form.fields.filter((f) => bad.has(f.name));
      if (toAsk.length === 0) return;
    }
  }

  private async ask(prompt: string): Promise<string | undefined> {
    if (this.opts.interactive) this.rl.setPrompt(terminalSafe(prompt));
    else this.opts.output.write(`${terminalSafe(prompt)}\n`);
    this.redrawPrompt();
    const next = await this.lines.next();
    if (this.opts.interactive) this.rl.setPrompt(this.surface.colors.bold('you› '));
    return next.done ? undefined : next.value.trim();
  }
}

export { SHELL_HANDOFF_CHANNEL };
