/** Office hours in the office's own time zone, across a time-zone boundary and daylight-saving changes. */
import {
  describeOpening,
  isOpen,
  nextOpening,
  officeTimeBetween,
  parseHours,
  type OfficeHours,
} from '../../../../src/core/handoff/hours/office-hours';

const H = 3600_000;
const utc = (iso: string): number => Date.parse(`${iso}Z`);

function hours(spec: string, timeZone: string): OfficeHours {
  const windows = parseHours(spec);
  if (typeof windows === 'string') throw new Error(windows);
  return { windows, timeZone };
}

describe('HANDOFF_HOURS parsing', () => {
  it('reads day ranges, single days and several groups', () => {
    expect(parseHours('Mon-Fri 09:00-18:00, Sat 10:00-14:00')).toHaveLength(6);
    expect(parseHours('Sun 09:00-17:00')).toEqual([{ weekday: 0, startMin: 540, endMin: 1020 }]);
    // A range may wrap over the weekend.
    expect((parseHours('Fri-Mon 00:00-24:00') as Array<{ weekday: number }>).map((w) => w.weekday)).toEqual([
      5, 6, 0, 1,
    ]);
  });

  it.each([
    ['Mon-Fri', /is not a day range and hours/],
    ['Mon-Fri 9-18', /is not a day range and hours/],
    ['Mon-Fro 09:00-18:00', /unknown day/],
    ['Mon 18:00-09:00', /closes before it opens/],
    ['Mon 09:00-25:00', /does not exist/],
    [' , ', /is empty/],
  ])('refuses %p', (spec, why) => {
    expect(parseHours(spec)).toMatch(why);
  });
});

describe('office hours in America/Chicago', () => {
  const office = hours('Mon-Fri 09:00-18:00, Sat 10:00-14:00', 'America/Chicago');

  it('is open by the office clock, not by UTC: a Friday evening there is Saturday in UTC', () => {
    // Monday 2 March 2026: 08:59 CST closed, 09:00 CST (15:00 UTC) open.
    expect(isOpen(office, utc('2026-03-02T14:59:00'))).toBe(false);
    expect(isOpen(office, utc('2026-03-02T15:00:00'))).toBe(true);
    // Friday 17:30 CST is 23:30 UTC (open); Friday 18:30 CST is already Saturday 00:30 UTC (closed).
    expect(isOpen(office, utc('2026-03-06T23:30:00'))).toBe(true);
    expect(isOpen(office, utc('2026-03-07T00:30:00'))).toBe(false);
    // Saturday 10:00-14:00 CST = 16:00-20:00 UTC.
    expect(isOpen(office, utc('2026-03-07T16:30:00'))).toBe(true);
    expect(isOpen(office, utc('2026-03-07T20:00:00'))).toBe(false);
    expect(isOpen(undefined, utc('2026-03-07T03:00:00'))).toBe(true);
  });

  it('names the next opening in the office time, through the spring-forward weekend', () => {
    // Saturday 7 March 2026, 15:00 CST: closed until Monday 9 March 09:00, which is CDT by then (14:00 UTC).
    const now = utc('2026-03-07T21:00:00');
    const back = nextOpening(office, now);
    expect(back).toBe(utc('2026-03-09T14:00:00'));
    expect(describeOpening(back!, office.timeZone, now)).toBe('Monday at 9:00 AM (Central Time)');
    // Open now: the opening is now.
    expect(nextOpening(office, utc('2026-03-09T14:30:00'))).toBe(utc('2026-03-09T14:30:00'));
  });

  it('counts only office time between two instants', () => {
    // Friday 17:00 CST to Monday 10:00 CDT: Friday's last hour, Saturday's 4 hours, Monday's first hour.
    expect(officeTimeBetween(office, utc('2026-03-06T23:00:00'), utc('2026-03-09T15:00:00'))).toBe(6 * H);
    // Within one opening, all of it.
    expect(officeTimeBetween(office, utc('2026-03-02T15:00:00'), utc('2026-03-02T15:20:00'))).toBe(20 * 60_000);
    expect(officeTimeBetween(undefined, 1000, 5000)).toBe(4000);
    expect(officeTimeBetween(office, 5000, 1000)).toBe(0);
  });

  it('a whole Sunday is 23 hours when clocks spring forward and 25 when they fall back', () => {
    const sundays = hours('Sun 00:00-24:00', 'America/Chicago');
    expect(officeTimeBetween(sundays, utc('2026-03-07T12:00:00'), utc('2026-03-10T12:00:00'))).toBe(23 * H);
    expect(officeTimeBetween(sundays, utc('2026-10-31T12:00:00'), utc('2026-11-03T12:00:00'))).toBe(25 * H);
    expect(officeTimeBetween(sundays, utc('2026-06-06T12:00:00'), utc('2026-06-09T12:00:00'))).toBe(24 * H);
  });
});

describe('office hours east of Greenwich (Asia/Tokyo, UTC+9)', () => {
  const office = hours('Mon 07:00-17:00', 'Asia/Tokyo');

  it("Monday 07:00 in Tokyo is Sunday 22:00 UTC: open on the office's Monday while UTC says Sunday", () => {
    // Sunday 1 March 2026 in UTC.
    expect(isOpen(office, utc('2026-03-01T22:00:00'))).toBe(true);
    expect(isOpen(office, utc('2026-03-01T21:59:00'))).toBe(false);
    // Monday 2 March 08:00 UTC is 17:00 in Tokyo: closed though UTC's Monday has just begun.
    expect(isOpen(office, utc('2026-03-02T08:00:00'))).toBe(false);
    const now = utc('2026-03-02T08:00:00');
    const back = nextOpening(office, now)!;
    expect(back).toBe(utc('2026-03-08T22:00:00'));
    expect(describeOpening(back, office.timeZone, now)).toBe('next Monday at 7:00 AM (Japan Standard Time)');
    expect(officeTimeBetween(office, utc('2026-03-01T12:00:00'), utc('2026-03-02T12:00:00'))).toBe(10 * H);
  });
});

describe('office hours in Europe/London across the autumn change', () => {
  it('a 09:00 opening stays 09:00 local as the offset drops from +1 to 0', () => {
    const office = hours('Mon-Fri 09:00-17:00', 'Europe/London');
    // Friday 23 October 2026 (BST): 08:00 UTC; Monday 26 October (GMT): 09:00 UTC.
    expect(nextOpening(office, utc('2026-10-23T07:00:00'))).toBe(utc('2026-10-23T08:00:00'));
    expect(nextOpening(office, utc('2026-10-23T17:00:00'))).toBe(utc('2026-10-26T09:00:00'));
    expect(isOpen(office, utc('2026-10-26T08:30:00'))).toBe(false);
    expect(describeOpening(utc('2026-10-26T09:00:00'), 'Europe/London', utc('2026-10-23T17:00:00'))).toBe(
      'Monday at 9:00 AM (United Kingdom Time)',
    );
    // UTC has no generic name in ICU ("GMT+00:00"): its own name is used.
    expect(describeOpening(utc('2026-10-26T09:00:00'), 'UTC', utc('2026-10-23T17:00:00'))).toBe(
      'Monday at 9:00 AM (Coordinated Universal Time)',
    );
  });
});
