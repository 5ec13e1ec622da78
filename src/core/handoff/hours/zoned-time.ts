/**
 * Wall-clock time in a named IANA time zone, with nothing but Intl: the local date and time of an
 * instant, and the instant of a local date and time. Office hours are written in wall time ("Mon
 * 09:00"), so every question about them goes through these two conversions.
 */

export interface WallTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

// Formatters are costly to build and the same few zones come back all the time.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when Intl knows the zone (e.g. "America/Chicago", "UTC"). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function wallTime(at: number, timeZone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(at))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** How far the zone's wall clock is ahead of UTC at `at` (ms; negative west of Greenwich). */
function offsetAt(at: number, timeZone: string): number {
  const w = wallTime(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/**
 * The instant the zone's clocks show `minuteOfDay` on the given local date (month 1-12; a day past
 * the month's end rolls over, as Date.UTC does). A wall time skipped by a daylight-saving jump maps
 * to the instant the jump lands on; a repeated one to its first occurrence.
 */
export function instantOf(year: number, month: number, day: number, minuteOfDay: number, timeZone: string): number {
  const asUtc = Date.UTC(year, month - 1, day, 0, minuteOfDay);
  const first = asUtc - offsetAt(asUtc, timeZone);
  const second = asUtc - offsetAt(first, timeZone);
  if (first === second) return first;
  // The offset changes between the two guesses: take the earlier that really shows this wall time,
  // else (a skipped time) the later guess, which is where the clock jumped to.
  const shows = (t: number) => {
    const w = wallTime(t, timeZone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) === asUtc;
  };
  const [early, late] = first < second ? [first, second] : [second, first];
  if (shows(early)) return early;
  if (shows(late)) return late;
  return Math.max(first, second);
}
