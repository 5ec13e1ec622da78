/**
 * The one guard pipeline every command, button press and form submit passes before its handler, in
 * the style of Bolt's middleware: a list of `(g, next)` steps, each of which either answers the
 * person (and stops) or calls `next`. The flood limit, "is it still there", who may and the error
 * reply are stated here once; a handler states only what it does.
 */
import { adminOnlyRefusal, mayUse } from './access';
import { usageOf } from './commands/catalogue';
import type { CoreContext } from './context';
import { floodRefusal } from './limits/user-limits';
import { loggedFailure } from './user-messages';
import type { CommandName, Invocation, OutMessage } from './surface';

/** What the guards read: who acts where, and what they invoked. */
export interface Guarded {
  inv: Invocation;
  /** Named in the error reply: "Sorry, <what> failed: ...". */
  what: string;
  /** The command it belongs to (a button's or form's command, whose admin rule applies); undefined: none. */
  command: CommandName | undefined;
  /** Told when nothing is registered under the invoked id (a button or form from an older version). */
  gone: string;
  /** A command's arguments ("help" is answered with its usage). */
  args?: string;
}

export type Guard = (g: Guarded, next: () => Promise<void>) => Promise<void>;

/** Runs `guards` in order around `handler` (the last `next`). */
export function runGuards(guards: readonly Guard[], g: Guarded, handler: () => Promise<void>): Promise<void> {
  const at = (i: number): Promise<void> => {
    const guard = guards[i];
    return guard ? guard(g, () => at(i + 1)) : handler();
  };
  return at(0);
}

const HELP_WORDS = new Set(['help', '-h', '--help', '?']);

/** A button press or a form submit, outermost step first. */
export function pressGuards(ctx: CoreContext): Guard[] {
  return [errorReply(ctx), floodLimit(ctx), registered(ctx), whoMay(ctx)];
}

/** A command: the same steps, and its usage for "help" (told to anyone, before the admin rule). */
export function commandGuards(ctx: CoreContext): Guard[] {
  return [errorReply(ctx), floodLimit(ctx), registered(ctx), help(ctx), whoMay(ctx)];
}

/** Told to the person, ephemerally; a reply that cannot be sent is logged, never thrown. */
export async function tell(ctx: CoreContext, inv: Invocation, msg: OutMessage): Promise<void> {
  try {
    await inv.reply(msg, { ephemeral: true });
  } catch (err) {
    ctx.log.error({ err }, 'could not reply to the invoker');
  }
}

/**
 * No error reaches a surface, and nothing internal reaches the person: a failure of the table
 * (user-messages.ts) is told in its words, anything else by reference, the detail logged beside it.
 */
function errorReply(ctx: CoreContext): Guard {
  return async (g, next) => {
    try {
      await next();
    } catch (err) {
      const told = loggedFailure(ctx.log, err, { what: g.what }, 'invocation failed');
      await tell(ctx, g.inv, { text: `Sorry, ${g.what} failed: ${told}` });
    }
  };
}

/** USER_RATE_LIMIT: one person's commands, button presses and form submits, across instances. */
function floodLimit(ctx: CoreContext): Guard {
  return async (g, next) => {
    const flood = await floodRefusal(ctx, g.inv.place, g.inv.actor);
    if (flood) return tell(ctx, g.inv, { text: flood });
    await next();
  };
}

function registered(ctx: CoreContext): Guard {
  return async (g, next) => {
    if (!g.command) return tell(ctx, g.inv, { text: g.gone });
    await next();
  };
}

function help(ctx: CoreContext): Guard {
  return async (g, next) => {
    if (g.command && HELP_WORDS.has((g.args ?? '').trim().toLowerCase()))
      return tell(ctx, g.inv, { text: usageOf(g.command) });
    await next();
  };
}

/** The catalogue's admin rule for the command (and its buttons and forms). */
function whoMay(ctx: CoreContext): Guard {
  return async (g, next) => {
    if (g.command && !mayUse(g.command, g.inv.actor)) return tell(ctx, g.inv, { text: adminOnlyRefusal(g.command) });
    await next();
  };
}
