// Strapi 5.54's parsers of date, time and datetime values (@strapi/database fields/shared/parsers.js),
// which its where builder applies to filter values of the operators that cast ($eq, $ne, $lt, $lte,
// $gt, $gte, $in, $notIn, $between, $not): the values they accept, what they make of them, and the
// messages of their errors (answered as 400 ValidationError with empty details; checked live).
import { ApiError } from './errors.ts';

const TIME = /^(2[0-3]|[01][0-9]):([0-5][0-9]):([0-5][0-9])(\.[0-9]{1,3})?$/;
const PARTIAL_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])/;

const invalid = (message: string) => new ApiError(400, 'ValidationError', message, {});

/** `HH:mm:ss[.SSS]` → `HH:mm:ss.SSS`. */
export function parseTime(value: string): string {
  const m = TIME.exec(value);
  if (!m) throw invalid('Invalid time format, expected HH:mm:ss.SSS');
  return `${m[1]}:${m[2]}:${m[3]}.${(m[4] ?? '.').slice(1).padEnd(3, '0')}`;
}

/** The `yyyy-MM-dd` a value starts with (Strapi ignores what follows, with a deprecation warning). */
export function parseDate(value: string): string {
  const d = PARTIAL_DATE.exec(value)?.[0];
  if (!d) throw invalid('Invalid format, expected yyyy-MM-dd');
  if (!validDay(Number(d.slice(0, 4)), Number(d.slice(5, 7)), Number(d.slice(8, 10)))) throw invalid('Invalid date');
  return d;
}

/** An ISO 8601 date-time (date-fns parseISO's forms) or epoch milliseconds → an ISO string in UTC. */
export function parseDateTime(value: string): string {
  const t = parseIso(value) ?? (/^-?\d+$/.test(value) ? Number(value) : null);
  if (t === null || !Number.isFinite(t) || Number.isNaN(new Date(t).getTime())) throw invalid('Invalid format, expected a timestamp or an ISO date');
  return new Date(t).toISOString();
}

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function validDay(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && leap(y) ? 29 : DAYS[m - 1]);
}

const YEAR = /^(?:(\d{4}|[+-]\d{6})|(\d{2}|[+-]\d{4})$)/;
const DATE_REST = /^-?(?:(\d{3})|(\d{2})(?:-?(\d{2}))?|W(\d{2})(?:-?(\d{1}))?|)$/;
const TIME_PART = /^(\d{2}(?:[.,]\d*)?)(?::?(\d{2}(?:[.,]\d*)?))?(?::?(\d{2}(?:[.,]\d*)?))?$/;
const ZONE = /^([+-])(\d{2})(?::?(\d{2}))?$/;

/**
 * date-fns 2's parseISO (additionalDigits 2): calendar, ordinal and week dates, an optional time after
 * `T` or a space, an optional zone; without a zone the time is the server's (UTC here). Epoch ms or null.
 */
function parseIso(value: string): number | null {
  const parts = value.split(/[T ]/);
  if (parts.length > 2 || /:/.test(parts[0])) return null;
  const [dateString, timeAndZone] = parts;
  const y = YEAR.exec(dateString);
  if (!y) return null;
  const year = y[1] ? parseInt(y[1], 10) : parseInt(y[2], 10) * 100;
  const rest = dateString.slice((y[1] || y[2]).length);
  if (y[2] && rest) return null;
  const d = DATE_REST.exec(rest);
  if (!d) return null;
  let day: number;
  if (d[4] !== undefined) {
    const week = Number(d[4]);
    const dow = d[5] !== undefined ? Number(d[5]) : 1;
    if (week < 1 || week > 53 || dow < 1 || dow > 7) return null;
    const jan4 = Date.UTC(year, 0, 4);
    const jan4Dow = new Date(jan4).getUTCDay() || 7;
    day = jan4 + ((week - 1) * 7 + dow - jan4Dow) * 86400000;
  } else if (d[1] !== undefined) {
    const ordinal = Number(d[1]);
    if (ordinal < 1 || ordinal > (leap(year) ? 366 : 365)) return null;
    day = Date.UTC(year, 0, ordinal);
  } else {
    const month = d[2] !== undefined ? Number(d[2]) : 1;
    const dom = d[3] !== undefined ? Number(d[3]) : 1;
    if (!validDay(year, month, dom)) return null;
    day = Date.UTC(year, month - 1, dom);
  }
  if (timeAndZone === undefined) return day;
  const z = /([Z+-].*)$/.exec(timeAndZone);
  const timeString = z ? timeAndZone.slice(0, z.index) : timeAndZone;
  const t = timeString === '' ? [] : TIME_PART.exec(timeString);
  if (!t) return null;
  const num = (s: string | undefined) => (s === undefined ? 0 : parseFloat(s.replace(',', '.')));
  const [h, mi, s] = [num(t[1]), num(t[2]), num(t[3])];
  if (h === 24 ? mi !== 0 || s !== 0 : h < 0 || h >= 25 || mi < 0 || mi >= 60 || s < 0 || s >= 60) return null;
  let offset = 0;
  if (z) {
    if (z[1] !== 'Z') {
      const m = ZONE.exec(z[1]);
      if (!m) return null;
      const oh = Number(m[2]);
      const om = m[3] !== undefined ? Number(m[3]) : 0;
      if (oh > 23 || om > 59) return null;
      offset = (m[1] === '+' ? -1 : 1) * (oh * 3600000 + om * 60000);
    }
  }
  return day + Math.round(h * 3600000 + mi * 60000 + s * 1000) + offset;
}
