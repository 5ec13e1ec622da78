/**
 * How a command's failures reach the invoker: every error becomes a message (ephemeral), so nothing
 * is silently dropped, and each says what was wrong and what to do.
 */
import { NetworkError, RequestValidationError, ServiceError, TimeoutError } from '../../service/errors';
import type { CommandHandler, CoreContext } from '../context';
import type { CommandName, Invocation } from '../surface';
import { usageOf } from './catalogue';
import { UsageError, isHelp } from './grammar';

/** The invoker may not do this (not an admin). The message says so and who may. */
export class RefusalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusalError';
  }
}

export function requireAdmin(inv: Invocation, what: string): void {
  if (!inv.actor.isAdmin) {
    throw new RefusalError(`Sorry, only admins may ${what}. Ask an admin of this workspace if you need it done.`);
  }
}

/** The text a user sees for an error a command raised. */
export function describeError(err: unknown): string {
  if (err instanceof UsageError) return err.render();
  if (err instanceof RefusalError) return err.message;
  if (err instanceof RequestValidationError)
    return `Some values were not accepted:\n${err.issues.map((i) => `• ${i.message}`).join('\n')}`;
  if (err instanceof ServiceError) return `The chatbot service refused: ${err.message}`;
  if (err instanceof TimeoutError || err instanceof NetworkError)
    return `The chatbot service could not be reached (${err.message}). Try again in a moment.`;
  return `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
}

/** Runs a command body; any error is answered ephemerally to the invoker. */
export async function guarded(
  ctx: CoreContext,
  inv: Invocation,
  name: string,
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof RefusalError || err instanceof RequestValidationError)) {
      ctx.log.warn({ err: err instanceof Error ? err.message : String(err), command: name }, 'command failed');
    }
    await inv.reply({ text: describeError(err) }, { ephemeral: true });
  }
}

type CommandBody = (ctx: CoreContext, inv: Invocation, args: string) => Promise<void>;

/**
 * Command `name`'s handler: its body runs `guarded`, and its `help` argument (with `helpWhenEmpty`,
 * no argument too) is answered with its usage from the catalogue.
 */
export function guardedCommand(
  name: CommandName,
  spec: Omit<CommandHandler, 'run'> & { body: CommandBody; helpWhenEmpty?: boolean },
): CommandHandler {
  const { body, helpWhenEmpty, ...handler } = spec;
  return {
    ...handler,
    async run(ctx, inv, args) {
      await guarded(ctx, inv, name, async () => {
        if (isHelp(args) || (helpWhenEmpty === true && args.trim() === '')) {
          await inv.reply({ text: usageOf(name) }, { ephemeral: true });
          return;
        }
        await body(ctx, inv, args);
      });
    },
  };
}
