// Values and paths as yup (Strapi 5.54's validator) prints them in its messages ("the final value was: `…`").

/** A path as yup writes it in a message: `content[0].children[1].text`. */
export const yupPath = (path: string[]): string => path.reduce((s, p, i) => (/^\d+$/.test(p) ? `${s}[${p}]` : i === 0 ? p : `${s}.${p}`), '');

/** yup's printSimpleValue (quoting strings): null for what it prints as JSON. */
function printSimple(v: unknown): string | null {
  if (v === null || v === undefined || v === true || v === false) return String(v);
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string') return `"${v}"`;
  return null;
}

/** A value as yup's printValue shows it (objects and arrays: JSON whose leaves are printed so, checked live). */
export const show = (v: unknown): string => printSimple(v) ?? JSON.stringify(v, function (this: Record<string, unknown>, key: string, x: unknown) {
  return printSimple(this[key]) ?? x;
}, 2);

