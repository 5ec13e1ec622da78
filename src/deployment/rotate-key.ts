/**
 * `npm run rotate-key` / `node dist/main.js rotate-key`: re-seals every sealed record of the store
 * STATE_URL names with STATE_ENCRYPTION_KEY (state/rotate-key.ts), prints what it did and whether
 * STATE_ENCRYPTION_KEY_PREVIOUS can be removed. Reads only those three variables (and .env): it runs
 * beside a deployment, whatever surfaces that one configures. Exit code 0 when every record is now
 * under STATE_ENCRYPTION_KEY, 2 when some could not be read, 1 on a configuration error.
 */
import dotenv from 'dotenv';
import { openStore } from '../state/open-store';
import { rotateKeys, rotationLines } from '../state/rotate-key';
import { parseEncryptionKey, SecretBox } from '../state/secret-box';

export async function runRotateKey(
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<number> {
  dotenv.config({ quiet: true });
  const current = env.STATE_ENCRYPTION_KEY?.trim();
  if (!current) {
    out(
      'rotate-key: STATE_ENCRYPTION_KEY is not set: set the new key (and the old one as STATE_ENCRYPTION_KEY_PREVIOUS)',
    );
    return 1;
  }
  const previous = env.STATE_ENCRYPTION_KEY_PREVIOUS?.trim();
  let box: SecretBox;
  try {
    box = new SecretBox(
      parseEncryptionKey('STATE_ENCRYPTION_KEY', current),
      previous ? parseEncryptionKey('STATE_ENCRYPTION_KEY_PREVIOUS', previous) : undefined,
    );
  } catch (err) {
    out(`rotate-key: ${(err as Error).message}`);
    return 1;
  }
  const store = await openStore(env.STATE_URL ?? 'sqlite:./data/bridge.db');
  try {
    const report = await rotateKeys(store, box);
    for (const line of rotationLines(report)) out(line);
    return report.unreadable.length === 0 ? 0 : 2;
  } finally {
    await store.close();
  }
}
