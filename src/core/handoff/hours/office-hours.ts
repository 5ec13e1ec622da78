/**
 * Office hours (HANDOFF_HOURS, e.g. "Mon-Fri 09:00-18:00, Sat 10:00-14:00") read in the office's
 * time zone: is the office open at an instant, when does it open next, and how much office time
 * lies between two instants (reminders and the claim timeout count only that). No schedule means
 * always open. Pure: every question names its instant, so the caller's clock decides what "now" is.
 */
import { instantOf, wallTime } from './zoned-time';

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DAY_MS = 24 * 3600 * 1000;

/** One opening on one weekday, in minutes after the local midnight (end exclusive, at most 24:00). */
export interface OfficeWindow {
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
  startMin: number;
  endMin: number;
}

export interface OfficeHours {
  windows: OfficeWindow[];
  timeZone: string;
}

export const HOURS_FORMAT = 'like "Mon-Fri 09:00-18:00, Sat 10:00-14:00" (days Mon..Sun, 24-hour times)';

/** The windows of a HANDOFF_HOURS value, or the reason it is not one. */
export function parseHours(spec: string): OfficeWindow[] | string {
  const windows: OfficeWindow[] = [];
  const groups = spec.split(',').map((g) => g.trim());
  if (groups.length === 0 || groups.every((g) => g === '')) return `is empty: write it ${HOURS_FORMAT}`;
  for (const group of groups) {
    const m = /^([a-z]{3})(?:\s*-\s*([a-z]{3}))?\s+(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/i.exec(group);
    if (!m) return `"${group}" is not a day range and hours: write it ${HOURS_FORMAT}`;
    const [, fromDay = '', toDay, h1, m1, h2, m2] = m;
    const from = DAY_NAMES.indexOf(fromDay.toLowerCase());
    const to = toDay === undefined ? from : DAY_NAMES.indexOf(toDay.toLowerCase());
    if (from < 0 || to < 0) return `"${group}" names an unknown day: use Mon, Tue, Wed, Thu, Fri, Sat, Sun`;
    const startMin = Number(h1) * 60 + Number(m1);
    const endMin = Number(h2) * 60 + Number(m2);
    if (Number(m1) > 59 || Number(m2) > 59 || startMin > 24 * 60 || endMin > 24 * 60)
      return `"${group}" has a time that does not exist: use 00:00 to 24:00`;
    if (endMin <= startMin)
      return `"${group}" closes before it opens: the closing time must be later the same day (24:00 at most)`;
    // A range such as Fri-Mon wraps over the weekend.
    for (let d = from; ; d = (d + 1) % 7) {
      windows.push({ weekday: d, startMin, endMin });
      if (d === to) break;
    }
  }
  return windows;
}

/** The office's openings that touch the local dates around [from, to), as instants, in order. */
function openings(hours: OfficeHours, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const start = wallTime(from, hours.timeZone);
  // A day either side: a local date can start before `from` and a window can end after `to`.
  const days = Math.ceil((to - from) / DAY_MS) + 2;
  for (let i = -1; i <= days; i++) {
    // Local calendar arithmetic in UTC terms (no zone involved), then each window to an instant.
    const date = new Date(Date.UTC(start.year, start.month - 1, start.day + i));
    const weekday = date.getUTCDay();
    for (const w of hours.windows) {
      if (w.weekday !== weekday) continue;
      const y = date.getUTCFullYear();
      const mo = date.getUTCMonth() + 1;
      const d = date.getUTCDate();
      out.push([instantOf(y, mo, d, w.startMin, hours.timeZone), instantOf(y, mo, d, w.endMin, hours.timeZone)]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

export function isOpen(hours: OfficeHours | undefined, at: number): boolean {
  if (!hours) return true;
  return openings(hours, at - DAY_MS, at + DAY_MS).some(([s, e]) => s <= at && at < e);
}

/** When the office next opens at or after `at` (`at` itself when open then); undefined with no windows. */
export function nextOpening(hours: OfficeHours | undefined, at: number): number | undefined {
  if (isOpen(hours, at)) return at;
  if (!hours || hours.windows.length === 0) return undefined;
  return openings(hours, at, at + 8 * DAY_MS).find(([s]) => s >= at)?.[0];
}

/** Office time between t0 and t1 (ms): all of it when always open. */
export function officeTimeBetween(hours: OfficeHours | undefined, t0: number, t1: number): number {
  if (t1 <= t0) return 0;
  if (!hours) return t1 - t0;
  let total = 0;
  for (const [s, e] of openings(hours, t0, t1)) total += Math.max(0, Math.min(e, t1) - Math.max(s, t0));
  return total;
}

/** "Monday at 9:00 AM (Central Time)": when the office is back, in its own wall time and words. */
export function describeOpening(at: number, timeZone: string, now: number): string {
  const fmt = (opts: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat('en-US', { timeZone, ...opts }).formatToParts(new Date(at));
  const part = (parts: Intl.DateTimeFormatPart[], type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = part(fmt({ weekday: 'long' }), 'weekday');
  const time = fmt({ hour: 'numeric', minute: '2-digit', hour12: true })
    .map((p) => p.value)
    .join('')
    // ICU puts a narrow no-break space before AM/PM: plain text reads better with a plain one.
    .replace(/\s/g, ' ');
  // "Central Time" names the zone whatever the season; where ICU has no such name ("GMT+00:00" for
  // UTC) the specific one reads better ("Coordinated Universal Time").
  const generic = part(fmt({ timeZoneName: 'longGeneric' }), 'timeZoneName');
  const zone = (/^GMT[+-]/.test(generic) ? part(fmt({ timeZoneName: 'long' }), 'timeZoneName') : generic) || timeZone;
  // A week ahead names today's weekday: "next Monday".
  const next = at - now > DAY_MS && wallTime(at, timeZone).weekday === wallTime(now, timeZone).weekday ? 'next ' : '';
  return `${next}${day} at ${time} (${zone})`;
}
