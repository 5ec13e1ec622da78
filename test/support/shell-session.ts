/** A bridge process driven through piped stdin, as a person at the shell would (shell e2e tests). */
import type { ChildProcessWithoutNullStreams } from 'child_process';

const PROMPT = /^(.+?): $/gm;

export class ShellSession {
  output = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    const onData = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      for (const wake of this.waiters.splice(0)) wake();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** Resolves with what `probe` finds in the output, re-checked on every chunk; rejects with the output on timeout. */
  probe<T>(probe: (out: string) => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}; output:\n${this.output}`)),
        timeoutMs,
      );
      const check = () => {
        const found = probe(this.output);
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        } else this.waiters.push(check);
      };
      check();
    });
  }

  /** Resolves with the output once `match` holds for it. */
  waitFor(match: (out: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
    return this.probe((out) => (match(out) ? out : undefined), what, timeoutMs);
  }

  type(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Form prompts printed since `from` (a form asks `Label: ` on a line of its own). */
  promptsAfter(from: number): string[] {
    return [...this.output.slice(from).matchAll(PROMPT)].map((m) => m[1]);
  }
}
