/**
 * discord.js trusts the gateway: a malformed dispatch (a null body, wrong types) throws inside its
 * packet handlers, and nothing catches it there, so one bad packet would end the process. This
 * guard checks the shape of the dispatches the bot relies on and drops (and logs) packets that do
 * not fit or that make a handler throw.
 */
import type { Client } from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';

const user = z.object({ id: z.string() }).passthrough();
const SHAPES: Record<string, z.ZodTypeAny> = {
  MESSAGE_CREATE: z.object({ id: z.string(), channel_id: z.string(), author: user }).passthrough(),
  MESSAGE_UPDATE: z.object({ id: z.string(), channel_id: z.string() }).passthrough(),
  MESSAGE_DELETE: z.object({ id: z.string(), channel_id: z.string() }).passthrough(),
  INTERACTION_CREATE: z
    .object({ id: z.string(), type: z.number().int(), token: z.string(), application_id: z.string(), data: z.object({}).passthrough().optional() })
    .passthrough(),
  THREAD_CREATE: z.object({ id: z.string(), type: z.number().int() }).passthrough(),
  CHANNEL_CREATE: z.object({ id: z.string(), type: z.number().int() }).passthrough(),
  GUILD_CREATE: z.object({ id: z.string() }).passthrough(),
  READY: z.object({ user, session_id: z.string() }).passthrough(),
};
const packetSchema = z.object({ t: z.string().nullish(), d: z.unknown() }).passthrough();

export function wellFormed(packet: unknown): boolean {
  const p = packetSchema.safeParse(packet);
  if (!p.success) return false;
  const t = p.data.t;
  if (!t) return true;
  const shape = SHAPES[t];
  if (shape) return shape.safeParse(p.data.d).success;
  // Other dispatches carry an object (RESUMED carries null).
  return t === 'RESUMED' || (typeof p.data.d === 'object' && p.data.d !== null);
}

type PacketHandler = (packet: unknown, shard: unknown) => boolean;

/** Wraps discord.js's (internal) packet dispatcher; without it the client works as before. */
export function guardGateway(client: Client, log: Logger): void {
  const ws = client.ws as unknown as { handlePacket?: PacketHandler };
  const original = ws.handlePacket;
  if (typeof original !== 'function') return;
  let dropped = 0;
  ws.handlePacket = function guarded(this: unknown, packet: unknown, shard: unknown): boolean {
    if (packet !== undefined && !wellFormed(packet)) {
      dropped += 1;
      log.warn({ dropped, event: packetSchema.safeParse(packet).data?.t ?? null }, 'discord: dropped a malformed gateway packet');
      return false;
    }
    try {
      return original.call(this, packet, shard);
    } catch (err) {
      dropped += 1;
      log.warn({ dropped, error: err instanceof Error ? err.message : String(err) }, 'discord: a gateway packet failed in discord.js');
      return false;
    }
  };
}
