/** Uncaught exceptions and unhandled rejections while watching: fault tests assert there were none. */
export class CrashWatch {
  readonly crashes: unknown[] = [];
  private readonly onCrash = (err: unknown): void => {
    this.crashes.push(err);
  };

  start(): void {
    process.on('uncaughtException', this.onCrash);
    process.on('unhandledRejection', this.onCrash);
  }

  stop(): void {
    process.off('uncaughtException', this.onCrash);
    process.off('unhandledRejection', this.onCrash);
  }
}
