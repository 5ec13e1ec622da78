/**
 * Encryption at rest for secrets kept in the state store (bot and refresh tokens, tenant
 * credentials): AES-256-GCM with node:crypto. The key is STATE_ENCRYPTION_KEY (32 bytes, base64);
 * STATE_ENCRYPTION_KEY_PREVIOUS, while an operator rotates keys, still opens what the previous key
 * sealed; `npm run rotate-key` (state/rotate-key.ts) re-seals every such record under the current key
 * and says when the previous one can go. Reading never writes a record back.
 *
 * A sealed value is `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url): the key id (the first bytes of
 * the key's SHA-256) picks the key without trying both, and is no secret.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const KEY_BYTES = 32;

/** What an operator runs to make a key; named in every error about one. */
export const MAKE_KEY_HINT = 'make one with `openssl rand -base64 32`';

export interface OpenedSecret {
  plain: string;
  /** Sealed with STATE_ENCRYPTION_KEY_PREVIOUS (`npm run rotate-key` re-seals it). */
  stale: boolean;
}

/** A 32-byte key from base64, or an error naming the variable and how to make a key. */
export function parseEncryptionKey(name: string, value: string): Buffer {
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(value.trim()) ? Buffer.from(value.trim(), 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) {
    throw new Error(`${name} must be ${KEY_BYTES} bytes in base64 (it decodes to ${key.length}): ${MAKE_KEY_HINT}`);
  }
  return key;
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export class SecretBox {
  private readonly currentId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer, previous?: Buffer) {
    this.currentId = keyId(current);
    this.keys.set(this.currentId, current);
    if (previous) this.keys.set(keyId(previous), previous);
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId) as Buffer, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return ['v1', this.currentId, ...parts].join('.');
  }

  /** The plain text; throws when the value was sealed with neither key or was changed. */
  open(sealed: string): OpenedSecret {
    const [version, id, iv, tag, body] = sealed.split('.');
    const key = id ? this.keys.get(id) : undefined;
    if (version !== 'v1' || !key || iv === undefined || tag === undefined || body === undefined) {
      throw new Error(
        'a stored secret was sealed with a key that is neither STATE_ENCRYPTION_KEY nor STATE_ENCRYPTION_KEY_PREVIOUS',
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    return { plain, stale: id !== this.currentId };
  }
}
