/**
 * How the client's gateway shards hand events to discord.js, so that one broken dispatch cannot end
 * the process.
 *
 * What we found (test/e2e/faults/discord-malformed.test.ts, discord.js 14.28, @discordjs/ws 1.2):
 * discord.js trusts the gateway. A dispatch with a null or mistyped field (`member: null`, a string
 * body, no `authorizing_integration_owners`) throws inside discord.js's packet handlers
 * (InteractionCreateAction, MessageCreateAction, the BaseInteraction constructor, ...). Nothing in
 * discord.js catches it: the throw leaves @discordjs/ws's `WebSocketShard.onMessage`, which is not
 * awaited, as an unhandled rejection, and an unhandled rejection ends a Node process. Neither
 * `Events.Error` nor `Events.ShardError` fires for it, so listening to them cannot help.
 *
 * discord.js's public extension point for its gateway is `ClientOptions.ws.buildStrategy`. This is
 * @discordjs/ws's SimpleShardingStrategy rebuilt from the same exported parts, with one difference:
 * handing an event to the client is caught. A dispatch discord.js cannot handle is dropped and
 * reported through `onEventError`; the session, its sequence numbers and every later event carry on.
 */
import {
  managerToFetchingStrategyOptions,
  SimpleContextFetchingStrategy,
  SimpleShardingStrategy,
  WebSocketShard,
  WebSocketShardEvents,
  type IShardingStrategy,
  type WebSocketManager,
  type WebSocketShardDestroyOptions,
} from '@discordjs/ws';
import type { GatewaySendPayload } from 'discord.js';

/** The event that failed (`dispatch` with its gateway name, e.g. INTERACTION_CREATE) and why. */
type ShardEventErrorHandler = (err: unknown, event: { name: string; dispatch: string | null; shardId: number }) => void;

/** The shard's events as the forwarding loop sees them: any event, one payload object. */
interface ShardEvents {
  on(event: string, listener: (payload: Record<string, unknown> | undefined) => void): void;
}

function dispatchName(payload: Record<string, unknown> | undefined): string | null {
  const data = payload?.data;
  if (typeof data !== 'object' || data === null || !('t' in data)) return null;
  return typeof data.t === 'string' ? data.t : null;
}

export class CheckedShardingStrategy implements IShardingStrategy {
  private readonly shards = new Map<number, WebSocketShard>();

  constructor(
    private readonly manager: WebSocketManager,
    private readonly onEventError: ShardEventErrorHandler,
  ) {}

  async spawn(shardIds: number[]): Promise<void> {
    const options = await managerToFetchingStrategyOptions(this.manager);
    for (const shardId of shardIds) {
      const shard = new WebSocketShard(new SimpleContextFetchingStrategy(this.manager, options), shardId);
      for (const name of Object.values(WebSocketShardEvents)) {
        (shard as unknown as ShardEvents).on(name, (payload) => {
          try {
            this.manager.emit(name, { ...payload, shardId } as never);
          } catch (err) {
            this.onEventError(err, { name, dispatch: dispatchName(payload), shardId });
          }
        });
      }
      this.shards.set(shardId, shard);
    }
  }

  async connect(): Promise<void> {
    await Promise.all([...this.shards.values()].map((shard) => shard.connect()));
  }

  async destroy(options?: Omit<WebSocketShardDestroyOptions, 'recover'>): Promise<void> {
    await Promise.all([...this.shards.values()].map((shard) => shard.destroy(options)));
    this.shards.clear();
  }

  async send(shardId: number, payload: GatewaySendPayload): Promise<void> {
    const shard = this.shards.get(shardId);
    if (!shard) throw new RangeError(`Shard ${shardId} not found`);
    await shard.send(payload);
  }

  async fetchStatus(): ReturnType<SimpleShardingStrategy['fetchStatus']> {
    // The answer is a Collection of @discordjs/ws's own @discordjs/collection (discord.js pins an
    // older one): an unspawned SimpleShardingStrategy hands an empty one to fill.
    const status = await new SimpleShardingStrategy(this.manager).fetchStatus();
    for (const [id, shard] of this.shards) status.set(id, shard.status);
    return status;
  }
}
