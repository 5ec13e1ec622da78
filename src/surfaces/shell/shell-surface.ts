import { mkdirSync, writeFileSync } from 'fs';
import { readFile } from 'fs/promises';
import { basename, join } from 'path';
import type { Writable } from 'stream';
import type {
  Actor,
  Attachment,
  Button,
  MessageRef,
  OutMessage,
  Place,
  SurfaceLimits,
  SurfacePort,
} from '../../core/surface';
import { palette, renderMessage, terminalSafe, type Palette } from './render';
import { NO_BUDGETS, NO_DIRECTORY, NO_STATUS } from '../../core/capabilities';

export const SHELL_WORKSPACE = 'local';
export const SHELL_CHANNEL = 'terminal';
export const SHELL_HANDOFF_CHANNEL = 'handoff';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with the ESC control character
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

const shortId = (thread: string) => thread.split('-').pop() ?? thread;

interface Shown {
  ref: MessageRef;
  msg: OutMessage;
  /** Printed at least once with real content (non-interactive output prints finals only). */
  printed: boolean;
  /** Where the message's file was written (./data/<name>), so a person can open it. */
  savedFile?: string;
}

export interface ShellSurfaceOptions {
  output: Writable & { columns?: number };
  /** A terminal: rewrite streaming answers in place, colours, spinner. Otherwise: plain lines, finals only. */
  interactive: boolean;
  /** Where files sent to the terminal (charts) are written; default ./data. */
  filesDir?: string;
  /** Called around every write so the input prompt can be cleared and redrawn. */
  beforeWrite?: () => void;
  afterWrite?: () => void;
}

/**
 * The terminal as a surface. Interactive: the answer being streamed is redrawn in place (it is the
 * last thing on screen); anything else prints below. Piped: only finished messages print, one block
 * each, so transcripts are readable and stable.
 */
export class ShellSurface implements SurfacePort {
  readonly name = 'shell' as const;
  // A terminal has no native streams, budgets, directory or status line.
  readonly streaming = undefined;
  readonly budgets = NO_BUDGETS;
  readonly directory = NO_DIRECTORY;
  readonly status = NO_STATUS;
  readonly limits: SurfaceLimits = { maxMessageLength: 100_000, maxFormFields: 100 };
  readonly colors: Palette;
  private readonly messages = new Map<string, Shown>();
  private counter = 0;
  private threadCounter = 0;
  private readonly runId = Date.now().toString(36);
  /**
   * The block last written and how many screen lines it took (interactive redraw), and the lines the
   * person submitted since: readline echoed them below the block, so a redraw reaches over them too.
   */
  private live: { id: string; lines: number; below: string[] } | undefined;
  private spinnerTimer: NodeJS.Timeout | undefined;
  private spinnerFrame = 0;
  /** Buttons last shown, for `/press`. */
  lastButtons: { ref: MessageRef; buttons: Button[] } | undefined;
  /** The thread the user is typing in; startThread moves it. */
  currentThread: string | undefined;

  constructor(private readonly opts: ShellSurfaceOptions) {
    this.colors = palette(opts.interactive);
  }

  /**
   * Thread ids are unique across runs: the thread -> session map is durable, so a new run must not
   * land in an old run's thread. Shown as `thread <n>` (the part after the dash).
   */
  newThreadId(): string {
    this.threadCounter += 1;
    return `${this.runId}-${this.threadCounter}`;
  }

  placeOf(thread?: string, channel = SHELL_CHANNEL): Place {
    return { surface: 'shell', workspace: SHELL_WORKSPACE, channel, ...(thread ? { thread } : {}) };
  }

  async post(place: Place, msg: OutMessage): Promise<MessageRef> {
    this.counter += 1;
    const ref: MessageRef = { place, id: String(this.counter) };
    const shown: Shown = { ref, msg, printed: false, savedFile: this.saveFile(msg) };
    this.messages.set(ref.id, shown);
    this.show(shown, false);
    return ref;
  }

  async edit(ref: MessageRef, msg: OutMessage): Promise<void> {
    const shown = this.messages.get(ref.id);
    if (!shown) throw new Error(`no such message ${ref.id}`);
    shown.msg = msg;
    shown.savedFile = this.saveFile(msg) ?? shown.savedFile;
    this.show(shown, true);
  }

  async startThread(place: Place, root: OutMessage, _title: string): Promise<{ thread: Place; root: MessageRef }> {
    const thread = this.newThreadId();
    // Only a conversation in the terminal becomes the one you type in (tickets start threads too).
    if (place.channel === SHELL_CHANNEL) this.currentThread = thread;
    const threadPlace = { ...place, thread };
    const rootRef = await this.post(threadPlace, root);
    return { thread: threadPlace, root: rootRef };
  }

  async notify(place: Place, _user: Actor, msg: OutMessage): Promise<void> {
    await this.post(place, { ...msg, notice: msg.notice ?? '(only you can see this)' });
  }

  mention(user: Actor): string {
    return `@${user.name}`;
  }

  /** In the shell an attachment is a local file path. */
  async fetchAttachment(att: Attachment): Promise<Buffer> {
    return readFile(att.url ?? att.id);
  }

  /** The newest message that matches (tickets for `/agent`). */
  latestMessage(
    match: (shown: { ref: MessageRef; msg: OutMessage }) => boolean,
  ): { ref: MessageRef; msg: OutMessage } | undefined {
    const all = [...this.messages.values()];
    for (let i = all.length - 1; i >= 0; i -= 1) if (match(all[i])) return all[i];
    return undefined;
  }

  /** Writes a message's file under the files directory; the path is what the message then shows. */
  private saveFile(msg: OutMessage): string | undefined {
    if (!msg.file) return undefined;
    const dir = this.opts.filesDir ?? 'data';
    mkdirSync(dir, { recursive: true });
    const path = join(dir, basename(msg.file.name));
    writeFileSync(path, msg.file.data);
    return path.startsWith('/') || path.startsWith('.') ? path : `./${path}`;
  }

  /**
   * A line the person submitted at the prompt (`echo`: the prompt and the line, as readline left them
   * on screen). It sits below the live block until the next message, so a rewrite redraws it too.
   */
  noteSubmitted(echo: string): void {
    this.live?.below.push(echo);
  }

  /** Print text that is not a message (banners, help, form prompts). */
  print(text: string): void {
    this.write(text);
    this.live = undefined;
  }

  close(): void {
    if (this.spinnerTimer) clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
  }

  private label(place: Place): string {
    const c = this.colors;
    if (place.channel === SHELL_HANDOFF_CHANNEL) {
      return c.magenta(place.thread ? `[#handoff › ticket thread ${shortId(place.thread)}]` : '[#handoff]');
    }
    if (place.thread && place.thread !== this.currentThread) return c.blue(`[thread ${shortId(place.thread)}]`);
    return c.green('bot›');
  }

  private show(shown: Shown, isEdit: boolean): void {
    const { msg, ref } = shown;
    if (msg.buttons && msg.buttons.length > 0) this.lastButtons = { ref, buttons: msg.buttons };
    if (!this.opts.interactive) {
      // Piped output: print each message once, when it is no longer streaming.
      if (msg.typing || (msg.text === '' && !msg.notice && !msg.cards?.length && !msg.file)) return;
      this.write(
        `${this.label(ref.place)} ${renderMessage(msg, this.colors, { typing: false, savedFile: shown.savedFile })}`,
      );
      shown.printed = true;
      return;
    }
    const body = this.body(shown);
    if (isEdit && this.live?.id === ref.id) {
      this.rewriteLive(body);
    } else if (isEdit && !msg.typing && shown.printed) {
      this.write(`${this.label(ref.place)} ${this.colors.dim('(updated)')} ${body}`);
      this.live = undefined;
    } else if (!isEdit || !shown.printed || !msg.typing) {
      this.write(`${this.label(ref.place)} ${body}`);
      this.live = { id: ref.id, lines: this.countLines(`bot› ${body}`), below: [] };
    }
    shown.printed = true;
    this.updateSpinner();
  }

  private body(shown: Shown): string {
    const { msg } = shown;
    if (msg.typing && msg.text === '') return this.colors.dim(`${SPINNER[this.spinnerFrame]} thinking…`);
    return renderMessage(msg, this.colors, { typing: true, savedFile: shown.savedFile });
  }

  private updateSpinner(): void {
    const waiting = this.live && this.messages.get(this.live.id)?.msg.typing;
    if (waiting && !this.spinnerTimer) {
      this.spinnerTimer = setInterval(() => {
        this.spinnerFrame = (this.spinnerFrame + 1) % SPINNER.length;
        const live = this.live && this.messages.get(this.live.id);
        if (live?.msg.typing && live.msg.text === '') this.rewriteLive(this.body(live));
      }, 100);
      this.spinnerTimer.unref();
    } else if (!waiting && this.spinnerTimer) {
      clearInterval(this.spinnerTimer);
      this.spinnerTimer = undefined;
    }
  }

  private rewriteLive(body: string): void {
    if (!this.live) return;
    const shown = this.messages.get(this.live.id);
    if (!shown) return;
    const text = `${this.label(shown.ref.place)} ${body}`;
    const below = this.live.below;
    const belowLines = below.reduce((sum, line) => sum + this.countLines(line), 0);
    this.opts.beforeWrite?.();
    // Up over the previous rendering and the lines typed under it, clear to the end of the screen,
    // draw both again.
    this.opts.output.write(
      `\u001b[${this.live.lines + belowLines}F\u001b[0J${terminalSafe(text)}\n${below.map((line) => `${terminalSafe(line)}\n`).join('')}`,
    );
    this.opts.afterWrite?.();
    this.live.lines = this.countLines(text);
  }

  private write(text: string): void {
    this.opts.beforeWrite?.();
    this.opts.output.write(`${terminalSafe(text)}\n`);
    this.opts.afterWrite?.();
  }

  private countLines(text: string): number {
    // A terminal that reports no width (0, as `script` without a size does) is taken as 80 wide:
    // dividing by 0 would move the cursor up "Infinity" lines, which no terminal does.
    const columns = this.opts.output.columns || 80;
    return text
      .replace(ANSI, '')
      .split('\n')
      .reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / columns)), 0);
  }
}
