/**
 * How a command's failures reach the invoker: every error becomes a message (ephemeral), so nothing
 * is silently dropped. What it may say is user-messages.ts's one table; anything else is told by
 * reference, the detail logged.
 */
import { RequestValidationError } from '../../service/errors';
import type { CommandHandler, CoreContext, TenantScope } from '../context';
import { UserFacingError, byReference, knownLine, userMessage } from '../user-messages';
import type { CommandName, Invocation } from '../surface';
import { usageOf } from './catalogue';
import { isHelp } from './grammar';

/** The invoker may not do this (not an admin). The message says so and who may. */
export class RefusalError extends UserFacingError {
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

/** The text a user sees for an error a command raised (user-messages.ts's table, or a ref). */
export function describeError(ctx: Pick<CoreContext, 'log'>, err: unknown, command?: string): string {
  return userMessage(ctx.log, err, command ? { command } : {});
}

/** Runs a command body; any error is answered ephemerally to the invoker. */
export async function guarded(
  ctx: Pick<CoreContext, 'log'>,
  inv: Invocation,
  name: string,
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } catch (err) {
    const known = knownLine(err);
    // The service failing is worth a line; a person's mistake or a refusal is not.
    if (known !== undefined && !(err instanceof UserFacingError || err instanceof RequestValidationError))
      ctx.log.warn({ err, command: name }, 'command failed');
    const text = known ?? byReference(ctx.log, err, { command: name });
    await inv.reply({ text }, { ephemeral: true });
  }
}

type CommandBody = (ctx: TenantScope, inv: Invocation, args: string) => Promise<void>;

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
