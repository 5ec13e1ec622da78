/**
 * Listing pages already serialised, bounded by their size in bytes (not by count: a page holds up to
 * 1,000 items, so 2,000 cached pages could reach gigabytes). The oldest entries go first; a page too
 * big to be worth caching is not cached.
 */
export const PAGE_CACHE_BYTES = 32 * 1024 * 1024;

export class PageCache {
  private readonly entries = new Map<string, string>();
  private used = 0;

  constructor(private readonly maxBytes = PAGE_CACHE_BYTES) {}

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, json: string): void {
    const size = sizeOf(key, json);
    this.delete(key);
    if (size > this.maxBytes / 4) return;
    while (this.used + size > this.maxBytes && this.entries.size > 0)
      this.delete(this.entries.keys().next().value as string);
    this.entries.set(key, json);
    this.used += size;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  /** Bytes held (keys and values, UTF-16 in memory). */
  get bytes(): number {
    return this.used;
  }

  private delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.used -= sizeOf(key, old);
  }
}

function sizeOf(key: string, json: string): number {
  return (key.length + json.length) * 2;
}
