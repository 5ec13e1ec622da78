/** A bridge process driven through piped stdin, as a person at the shell would (shell e2e tests). */
import type { ChildProcessWithoutNullStreams } from 'child_process';
import { EventEmitter } from 'node:events';
import { waitFor } from '../../fakes/wait-for';

const PROMPT = /^(.+?): $/gm;

export class ShellSession {
  output = '';
  /** Emits 'change' on every chunk of output. */
  readonly changes = new EventEmitter();
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    const onData = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      this.changes.emit('change');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** The one waitFor (./wait-for.ts) on the output, re-checked on every chunk; a timeout shows the output. */
  waitFor<T>(probe: (out: string) => T | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
    return waitFor(
      () => probe(this.output),
      () => `${what}; output:\n${this.output}`,
      timeoutMs,
      this.changes,
    );
  }

  type(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Form prompts printed since `from` (a form asks `Label: ` on a line of its own). */
  promptsAfter(from: number): string[] {
    return [...this.output.slice(from).matchAll(PROMPT)].map((m) => m[1]);
  }
}
