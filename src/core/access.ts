/** Who may do what: the surface decides who is an admin; core applies it to commands, buttons and forms. */
import { specOf } from './commands/catalogue';
import type { Actor, CommandName } from './surface';

/** Whether `actor` may run `command` (and press its buttons, submit its forms): the catalogue says. */
export function mayUse(command: CommandName, actor: Actor): boolean {
  return !specOf(command).adminOnly || actor.isAdmin;
}

export function adminOnlyRefusal(name: string): string {
  return `Sorry, /${name} is for admins only. Ask one of your workspace's bridge admins if you need it.`;
}
