import { randomBytes } from 'node:crypto';

let cached: string | undefined;

/**
 * Identifies this process among the instances sharing one store (lease owner, rate-log member).
 * Not the host name: several processes on one host, or containers reusing a name, must differ.
 */
export function instanceId(): string {
  if (cached === undefined) {
    const fromEnv = process.env.INSTANCE_ID?.trim();
    cached = fromEnv ? fromEnv : `${randomBytes(6).toString('hex')}-${process.pid}`;
  }
  return cached;
}
