/**
 * At most once per interval per guild (a refetch of its roles when one is missing from discord.js's
 * cache). Only the last interval's marks are held: older ones are pruned as new ones are taken, so
 * a guild the bot left is forgotten within the interval. A mark names no user or channel, and an
 * instance that did not take it only fetches once more: nothing another instance must agree on.
 */
export class GuildThrottle {
  private readonly takenAt = new Map<string, number>();

  constructor(
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True (and marked) when the guild's last turn is over; false while it is not. */
  take(guildId: string): boolean {
    const now = this.now();
    for (const [id, at] of this.takenAt) if (now - at >= this.everyMs) this.takenAt.delete(id);
    if (this.takenAt.has(guildId)) return false;
    this.takenAt.set(guildId, now);
    return true;
  }
}
