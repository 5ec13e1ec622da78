/** Who may do what: the surface decides who is an admin; core applies it to commands, buttons and forms. */
import type { CommandHandler } from './context';
import type { Actor } from './surface';

export function mayUse(handler: Pick<CommandHandler, 'adminOnly'>, actor: Actor): boolean {
  return !handler.adminOnly || actor.isAdmin;
}

export function adminOnlyRefusal(name: string): string {
  return `Sorry, /${name} is for admins only. Ask one of your workspace's bridge admins if you need it.`;
}
