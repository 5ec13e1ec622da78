/**
 * On a terminal the shell rewrites a message in place (a streamed answer, /analytics' progress
 * line). A line the person submits meanwhile is echoed by readline below that message, so the
 * rewrite must reach over it: otherwise it overwrites the typed line and leaves the old text on
 * screen. The shell runs here in-process on a terminal-mode readline over streams, its output
 * replayed on a terminal screen; the command's result is held until the typed line is echoed.
 */
import { PassThrough } from 'stream';
import type { BridgeCore, Invocation, MessageRef } from '../../../src/core/surface';
import { Shell } from '../../../src/surfaces/shell/shell';
import { ShellSurface } from '../../../src/surfaces/shell/shell-surface';
import { screenOf } from '../../support/terminal-screen';

const COLUMNS = 100;

interface Rig {
  output: string;
  /** Resolves once `holds` is true of the output (checked on every write). */
  until(holds: (output: string) => boolean): Promise<void>;
  shows(text: string): Promise<void>;
  type(keys: string): void;
  finish(): void;
  /** Lets the held command end with `result`. */
  release(result: string): void;
  done: Promise<number>;
  screen(): string[];
}

function rig(reportedColumns = COLUMNS): Rig {
  const input = new PassThrough();
  const out = Object.assign(new PassThrough(), { columns: reportedColumns, isTTY: true });
  let output = '';
  const waiters: Array<() => void> = [];
  out.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  });
  let shell: Shell | undefined;
  const surface = new ShellSurface({ output: out, interactive: true, ...Shell.promptHooks(() => shell) });
  let release: (result: string) => void = () => undefined;
  const held = new Promise<string>((resolve) => {
    release = resolve;
  });
  const core: BridgeCore = {
    async command(inv: Invocation) {
      const progress = (await inv.reply({ text: 'Crunching analytics for 2026-01-01 to 2026-01-31…' })) as MessageRef;
      await inv.surface.edit(progress, { text: await held });
    },
    message: async () => true,
    action: async () => undefined,
    submitForm: async () => ({ ok: true }),
  };
  shell = new Shell({ core, surface, input, output: out, interactive: true });
  const until = (holds: (output: string) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (holds(output) ? resolve() : waiters.push(check));
      check();
    });
  const done = shell.run();
  return {
    get output() {
      return output;
    },
    until,
    shows: (text) => until((o) => o.includes(text)),
    type: (keys) => input.write(keys),
    finish: () => input.end(),
    release,
    done,
    screen: () => screenOf(output, reportedColumns || 80),
  };
}

describe('the shell on a terminal: a rewrite with a line typed below it', () => {
  it('replaces the progress line with the result and keeps the typed line under it', async () => {
    const r = rig();
    r.type('/analytics\r');
    await r.shows('Crunching analytics');
    // Typed while the command runs: readline echoes it below the progress line at once.
    const before = r.output.length;
    r.type('/new\r');
    await r.until((o) => /\/new\r\n/.test(o.slice(before)));
    r.release('Analytics for Skyline Realty Assistant\nConversations: 3');
    await r.shows('(your next message starts a new conversation)');
    r.finish();
    await r.done;

    const screen = r.screen();
    const text = screen.join('\n');
    expect(text).not.toContain('Crunching analytics');
    const result = screen.indexOf('bot› Analytics for Skyline Realty Assistant');
    expect(result).toBeGreaterThan(-1);
    expect(screen[result - 1]).toBe('you› /analytics');
    expect(screen[result + 1]).toBe('Conversations: 3');
    // The typed line is still on screen, under the result, and its own output follows it.
    expect(screen[result + 2]).toBe('you› /new');
    expect(screen[result + 3]).toBe('(your next message starts a new conversation)');
  });

  it.each([
    ['with nothing typed meanwhile, the result takes the progress line in place', undefined],
    ['on a terminal that reports no width, the result still takes the progress line (80 columns assumed)', 0],
  ] as const)('%s', async (_, columns) => {
    const r = columns === undefined ? rig() : rig(columns);
    r.type('/analytics\r');
    await r.shows('Crunching analytics');
    r.release('Analytics for Skyline Realty Assistant\nConversations: 3');
    await r.shows('Conversations: 3');
    r.finish();
    await r.done;
    expect(r.output).not.toContain('Infinity');
    const screen = r.screen();
    expect(screen.join('\n')).not.toContain('Crunching analytics');
    const result = screen.indexOf('bot› Analytics for Skyline Realty Assistant');
    expect(screen[result - 1]).toBe('you› /analytics');
    expect(screen[result + 1]).toBe('Conversations: 3');
  });
});
