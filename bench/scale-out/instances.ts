/**
 * Bridge instances as an operator runs them: `node src/main.js` (the compiled entry), each with its
 * own PORT and INSTANCE_ID and the same STATE_URL; their log lines (pino JSON) kept for the figures,
 * their memory read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../fakes/wait-for';

/** The compiled entry next to this file in the bench build (.bench-build/src/main.js). */
const MAIN_JS = join(__dirname, '..', '..', 'src', 'main.js');

export interface Memory {
  rssMb: number;
  peakRssMb: number;
}

export class BridgeInstance {
  readonly lines: Array<Record<string, unknown>> = [];
  port = 0;
  exited = false;
  /** Memory read just before a kill (a dead process has none to read). */
  lastMemory: Memory | undefined;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    private readonly cwd: string,
  ) {
    child.once('exit', () => {
      this.exited = true;
    });
    let buffered = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          this.lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a log line
        }
      }
    });
  }

  /** Spawns the bridge (its own empty working directory: no .env is read) and waits for "ready". */
  static async start(name: string, env: Record<string, string>): Promise<BridgeInstance> {
    const cwd = mkdtempSync(join(tmpdir(), `scale-${name}-`));
    const child = spawn(process.execPath, [MAIN_JS], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', LOG_LEVEL: 'info', ...env, INSTANCE_ID: name },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const inst = new BridgeInstance(name, child, cwd);
    const ready = await waitFor(
      () => {
        if (inst.exited) throw new Error(`bridge ${name} exited at start-up: ${JSON.stringify(inst.lines.slice(-3))}`);
        return inst.lines.find((l) => l.msg === 'chatbot-bridge ready');
      },
      `bridge ${name} ready`,
      30_000,
    );
    inst.port = Number(ready.port);
    return inst;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resident and peak resident memory (VmRSS, VmHWM), in MB. */
  memory(): Memory | undefined {
    if (this.exited) return this.lastMemory;
    try {
      const status = readFileSync(`/proc/${String(this.child.pid)}/status`, 'utf8');
      const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
    } catch {
      return undefined;
    }
  }

  /** SIGKILL (a crash): resolves with the moment the process was gone. */
  async kill(): Promise<number> {
    this.lastMemory = this.memory();
    const gone = new Promise<void>((done) => this.child.once('exit', () => done()));
    if (!this.exited) this.child.kill('SIGKILL');
    if (!this.exited) await gone;
    return Date.now();
  }

  /** SIGTERM, then SIGKILL if it lingers; removes its working directory. */
  async stop(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise<void>((done) => this.child.once('exit', () => done()));
      this.child.kill('SIGTERM');
      const late = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(late);
    }
    rmSync(this.cwd, { recursive: true, force: true });
  }

  /** Log lines with this message. */
  logged(msg: string): Array<Record<string, unknown>> {
    return this.lines.filter((l) => l.msg === msg);
  }
}
