import crypto from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open';
import { type FileFormat, judgeFormat } from './file-kind';

/** How long a PreUploadUrl accepts its PUT (the hosted service: 5 to 10 minutes). */
export const UPLOAD_URL_TTL_MS = 10 * 60 * 1000;

export interface UploadRecord {
  id: number;
  fileName: string;
  token: string;
  expiresAt: number;
  /** Set once the bytes arrived. */
  size: number | null;
  format: FileFormat | null;
}

interface Row {
  id: number;
  file_name: string;
  token: string;
  expires_at: number;
  size: number | null;
  format: FileFormat | null;
}

export type PutResult = { ok: true; record: UploadRecord } | { ok: false; status: number; message: string };

/** Pre-signed uploads: the bytes are judged on arrival and only their size and format are kept. */
export class UploadsRepo {
  private readonly insertStmt: Statement<[string, string, number, number]>;
  private readonly getStmt: Statement<[number], Row>;
  private readonly completeStmt: Statement<[number, string, number]>;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO uploads (file_name, token, expires_at, created_at) VALUES (?, ?, ?, ?)');
    this.getStmt = db.prepare('SELECT id, file_name, token, expires_at, size, format FROM uploads WHERE id = ?');
    this.completeStmt = db.prepare('UPDATE uploads SET size = ?, format = ? WHERE id = ?');
  }

  create(fileName: string): UploadRecord {
    const now = Date.now();
    const token = crypto.randomBytes(18).toString('base64url');
    const info = this.insertStmt.run(fileName, token, now + UPLOAD_URL_TTL_MS, now);
    return {
      id: Number(info.lastInsertRowid),
      fileName,
      token,
      expiresAt: now + UPLOAD_URL_TTL_MS,
      size: null,
      format: null,
    };
  }

  get(id: number): UploadRecord | undefined {
    if (!Number.isSafeInteger(id)) return undefined;
    const r = this.getStmt.get(id);
    return r
      ? {
          id: r.id,
          fileName: r.file_name,
          token: r.token,
          expiresAt: r.expires_at,
          size: r.size,
          format: r.format || null,
        }
      : undefined;
  }

  /** Whether a PUT to this pre-signed URL may send its body: the signature and the expiry. */
  authorize(
    id: number,
    token: string,
  ): { ok: true; record: UploadRecord } | { ok: false; status: number; message: string } {
    const rec = this.get(id);
    if (!rec || !safeEqual(rec.token, token)) return { ok: false, status: 403, message: 'The upload URL is not valid' };
    if (Date.now() > rec.expiresAt)
      return { ok: false, status: 403, message: 'The upload URL has expired; ask GetPreUploadUrl for a new one' };
    return { ok: true, record: rec };
  }

  /** The PUT of a pre-signed URL: checks the signature and the expiry, then records the file. */
  put(id: number, token: string, bytes: Buffer): PutResult {
    const auth = this.authorize(id, token);
    if (!auth.ok) return auth;
    const rec = auth.record;
    const format = judgeFormat(rec.fileName, bytes) ?? null;
    this.completeStmt.run(bytes.length, format ?? '', id);
    return { ok: true, record: { ...rec, size: bytes.length, format } };
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
