// yup's casts in Strapi 5.54's attribute validators (yup 0.32): what a value becomes before it is checked
// (src/rest/validate.ts) and what the entry Strapi's later steps see holds (src/rest/strapi-entry.ts: the
// relations store's errors show it). One place, so the two never disagree. Checked live on Strapi 5.54.

/** yup's number cast: a string without its white space (none left: NaN), anything else through parseFloat ([5] is 5, true NaN). */
export function yupNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const bare = v.replace(/\s/g, '');
    return bare === '' ? NaN : +bare;
  }
  return parseFloat(String(v));
}

/** yup's boolean cast: a value whose text is true or 1, false or 0, in any case ("TRUE", [1]); undefined for any other. */
export function yupBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  const text = String(v);
  if (/^(true|1)$/i.test(text)) return true;
  if (/^(false|0)$/i.test(text)) return false;
  return undefined;
}

/** yup's string cast of an enumeration's value (its oneOf): a number or a boolean becomes its text. */
export function yupEnumeration(v: unknown): unknown {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
}
