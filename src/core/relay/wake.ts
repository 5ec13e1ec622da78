/**
 * A versioned wake-up: a waiter that passes the version it last saw never misses a change made
 * between its check and its wait.
 */
export class Wake {
  private version = 0;
  private waiters: Array<() => void> = [];

  get current(): number {
    return this.version;
  }

  bump(): void {
    this.version++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once the version moves past `seen`, or after `timeoutMs` when given. */
  wait(seen: number, timeoutMs?: number): Promise<void> {
    if (this.version !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer) clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        timer = setTimeout(
          () => {
            this.waiters = this.waiters.filter((w) => w !== done);
            resolve();
          },
          Math.max(0, timeoutMs),
        );
      }
    });
  }
}
