import type { Statement } from 'better-sqlite3';
import type { KeyType, SaleType } from '../../service/schemas';
import type { Db } from '../db/open';
import { type ListingData, listingPrice, normCity } from './listing-data';
import { PageCache } from './page-cache';
import { toWireItem } from './wire-item';

export interface ListFilter {
  city?: string;
  saleType?: SaleType;
  mlsNumber?: string;
}

/** What the answerer may ask for; every member narrows the result. */
export interface SearchFilter extends ListFilter {
  minBedrooms?: number;
  maxPrice?: number;
  minPrice?: number;
  status?: ListingData['Status'];
}

export interface StoredListing {
  id: number;
  data: ListingData;
}

interface Row {
  id: number;
  data_json: string;
}

/** Listings of every chatbot; all statements prepared once. */
export class ListingsRepo {
  private readonly insertStmt: Statement<
    [string, string, string, string, string, string, string, number, number | null, string, string]
  >;
  private readonly setItemStmt: Statement<[string, number]>;
  private readonly updateStmt: Statement<
    [string, string, string, string, string, string, number, number | null, string, string, number]
  >;
  private readonly deleteStmt: Statement<[number]>;
  private readonly byIdStmt: Statement<[string, number], Row>;
  private readonly byMlsStmt: Statement<[string, string], Row>;
  private readonly byUrlStmt: Statement<[string, string], Row>;
  private readonly citiesStmt: Statement<[string], { city: string }>;
  private readonly countAllStmt: Statement<[string], { n: number }>;
  private readonly listCache = new Map<
    string,
    { page: Statement<unknown[], { item_json: string }>; count: Statement<unknown[], { n: number }> }
  >();
  private readonly searchCache = new Map<string, Statement<unknown[], Row>>();
  private readonly citiesCache = new Map<string, string[]>();
  /**
   * Totals per filter and pages per (filter, page): a list request is far more frequent than a
   * write, and counting thousands of index entries per request dominated its time. Every write
   * clears both, so a read never sees stale data.
   */
  private readonly countCache = new Map<string, number>();
  private readonly pageCache = new PageCache();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO listings (chatbot_id, sale_type, status, city, city_norm, mls_number, url, bedrooms, price, data_json, item_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.setItemStmt = db.prepare('UPDATE listings SET item_json = ? WHERE id = ?');
    this.updateStmt = db.prepare(
      `UPDATE listings SET sale_type = ?, status = ?, city = ?, city_norm = ?, mls_number = ?, url = ?, bedrooms = ?, price = ?,
       data_json = ?, item_json = ? WHERE id = ?`,
    );
    this.deleteStmt = db.prepare('DELETE FROM listings WHERE id = ?');
    this.byIdStmt = db.prepare('SELECT id, data_json FROM listings WHERE chatbot_id = ? AND id = ?');
    this.byMlsStmt = db.prepare(
      'SELECT id, data_json FROM listings WHERE chatbot_id = ? AND mls_number = ? ORDER BY id',
    );
    this.byUrlStmt = db.prepare('SELECT id, data_json FROM listings WHERE chatbot_id = ? AND url = ? ORDER BY id');
    this.citiesStmt = db.prepare(
      `SELECT MIN(city) AS city FROM listings WHERE chatbot_id = ? AND city_norm <> ''
     GROUP BY city_norm ORDER BY city_norm`,
    );
    this.countAllStmt = db.prepare('SELECT COUNT(*) AS n FROM listings WHERE chatbot_id = ?');
  }

  create(chatbotId: string, data: ListingData): number {
    this.citiesCache.delete(chatbotId);
    this.countCache.clear();
    this.pageCache.clear();
    return this.db.transaction(() => {
      const info = this.insertStmt.run(
        chatbotId,
        data.SaleType,
        data.Status,
        (data.City ?? '').trim(),
        normCity(data.City),
        data.MLSNumber,
        data.Url,
        data.Bedrooms,
        listingPrice(data) ?? null,
        JSON.stringify(data),
        '',
      );
      const id = Number(info.lastInsertRowid);
      this.setItemStmt.run(JSON.stringify(toWireItem(id, data)), id);
      return id;
    })();
  }

  /** Inserts many listings in one transaction (demo data, bench). */
  createMany(chatbotId: string, all: readonly ListingData[]): void {
    this.db.transaction(() => {
      for (const d of all) this.create(chatbotId, d);
    })();
  }

  find(chatbotId: string, keyType: KeyType, key: string): StoredListing[] {
    let rows: Row[];
    if (keyType === 'ListingId') {
      const id = /^\d+$/.test(key.trim()) ? Number(key.trim()) : NaN;
      const row = Number.isSafeInteger(id) ? this.byIdStmt.get(chatbotId, id) : undefined;
      rows = row ? [row] : [];
    } else if (keyType === 'MLSNumber') {
      rows = this.byMlsStmt.all(chatbotId, key);
    } else {
      rows = this.byUrlStmt.all(chatbotId, key);
    }
    return rows.map(toStored);
  }

  /** Applies `patch` over every listing the key finds; returns how many were updated. */
  update(chatbotId: string, keyType: KeyType, key: string, patch: Partial<ListingData>): number {
    this.citiesCache.delete(chatbotId);
    this.countCache.clear();
    this.pageCache.clear();
    return this.db.transaction(() => {
      const found = this.find(chatbotId, keyType, key);
      for (const { id, data } of found) {
        const merged: ListingData = { ...data, ...dropUndefined(patch) };
        this.updateStmt.run(
          merged.SaleType,
          merged.Status,
          (merged.City ?? '').trim(),
          normCity(merged.City),
          merged.MLSNumber,
          merged.Url,
          merged.Bedrooms,
          listingPrice(merged) ?? null,
          JSON.stringify(merged),
          JSON.stringify(toWireItem(id, merged)),
          id,
        );
      }
      return found.length;
    })();
  }

  /** Deletes what the keys find; counts only rows actually deleted (a key repeated counts once). */
  delete(chatbotId: string, keyType: KeyType, keys: readonly string[]): number {
    this.citiesCache.delete(chatbotId);
    this.countCache.clear();
    this.pageCache.clear();
    return this.db.transaction(() => {
      let n = 0;
      for (const key of keys) {
        for (const { id } of this.find(chatbotId, keyType, key)) n += this.deleteStmt.run(id).changes;
      }
      return n;
    })();
  }

  /** One page of wire items as JSON array members (`{..},{..}`) and the total matching the filter. */
  list(
    chatbotId: string,
    filter: ListFilter,
    pageNumber: number,
    pageSize: number,
  ): { itemsJson: string; total: number } {
    const args: unknown[] = [chatbotId];
    const where: string[] = ['chatbot_id = ?'];
    if (filter.city !== undefined && filter.city.trim() !== '') {
      where.push('city_norm = ?');
      args.push(normCity(filter.city));
    }
    if (filter.saleType !== undefined) {
      where.push('sale_type = ?');
      args.push(filter.saleType);
    }
    if (filter.mlsNumber !== undefined && filter.mlsNumber !== '') {
      where.push('mls_number = ?');
      args.push(filter.mlsNumber);
    }
    const shape = where.join(' AND ');
    let stmts = this.listCache.get(shape);
    if (!stmts) {
      stmts = {
        // OFFSET walks the covering index only; just the page's rows are read from the table.
        page: this.db.prepare(
          `SELECT item_json FROM listings WHERE id IN (SELECT id FROM listings WHERE ${shape} ORDER BY id LIMIT ? OFFSET ?) ORDER BY id`,
        ),
        count: this.db.prepare(`SELECT COUNT(*) AS n FROM listings WHERE ${shape}`),
      };
      this.listCache.set(shape, stmts);
    }
    const countKey = JSON.stringify(args);
    let total = this.countCache.get(countKey);
    if (total === undefined) {
      total = stmts.count.get(...args)?.n ?? 0;
      if (this.countCache.size >= 10_000) this.countCache.clear();
      this.countCache.set(countKey, total);
    }
    const offset = (pageNumber - 1) * pageSize;
    if (offset >= total) return { itemsJson: '', total };
    const pageKey = `${countKey}|${pageSize}|${offset}`;
    let itemsJson = this.pageCache.get(pageKey);
    if (itemsJson === undefined) {
      itemsJson = stmts.page
        .all(...args, pageSize, offset)
        .map((r) => r.item_json)
        .join(',');
      this.pageCache.set(pageKey, itemsJson);
    }
    return { itemsJson, total };
  }

  /** The answerer's query: listings matching every given criterion, in id order. */
  search(chatbotId: string, f: SearchFilter, limit: number): StoredListing[] {
    const args: unknown[] = [chatbotId];
    const where: string[] = ['chatbot_id = ?'];
    const add = (sql: string, v: unknown): void => {
      where.push(sql);
      args.push(v);
    };
    if (f.city) add('city_norm = ?', normCity(f.city));
    if (f.saleType) add('sale_type = ?', f.saleType);
    if (f.mlsNumber) add('mls_number = ?', f.mlsNumber);
    if (f.minBedrooms !== undefined) add('bedrooms >= ?', f.minBedrooms);
    if (f.maxPrice !== undefined) add('price <= ?', f.maxPrice);
    if (f.minPrice !== undefined) add('price >= ?', f.minPrice);
    if (f.status) add('status = ?', f.status);
    const sql = `SELECT id, data_json FROM listings WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`;
    let stmt = this.searchCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.searchCache.set(sql, stmt);
    }
    return stmt.all(...args, limit).map(toStored);
  }

  /** Distinct display names of the chatbot's cities; cached until its listings change. */
  cities(chatbotId: string): string[] {
    let c = this.citiesCache.get(chatbotId);
    if (!c) {
      c = this.citiesStmt.all(chatbotId).map((r) => r.city);
      this.citiesCache.set(chatbotId, c);
    }
    return c;
  }

  count(chatbotId: string): number {
    return this.countAllStmt.get(chatbotId)?.n ?? 0;
  }
}

function toStored(r: Row): StoredListing {
  return { id: r.id, data: JSON.parse(r.data_json) as ListingData };
}

function dropUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
