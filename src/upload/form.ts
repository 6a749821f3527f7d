// The upload request body → files, their fileInfo and the optional entry to attach them to
// (`ref`, `refId`, `field`), validated like Strapi's upload body (yup: strings or null).
import { checkJsonDepth, type Task } from '../task.ts';
import { fieldErrors, validation, type ApiError, type FieldError } from '../../compiler/errors.ts';
import { show } from '../rest/yup-print.ts';
import { boundaryOf, parseMultipart, MultipartError, type Part } from './multipart.ts';

export interface Incoming { filename: string; contentType: string | null; data: Buffer }
export interface FileInfo { name?: string | null; alternativeText?: string | null; caption?: string | null; focalPoint?: { x: number; y: number } | null }
export interface Target { ref: string; refId: string; field: string }
/**
 * `fileInfo`: its JSON as Strapi's upload reads it, a list when the field is repeated (undefined: none);
 * `fileInfoGiven`: as sent (a field's text), what an edit without files is checked on.
 */
export interface UploadForm { files: Incoming[]; fileInfo: unknown; fileInfoGiven: unknown; target: Target | null }

const INFO_KEYS = ['name', 'alternativeText', 'caption'] as const;

/**
 * One fileInfo as the upload plugin's yup schema takes it (non-strict): name, alternativeText and caption
 * strings (a number or boolean cast to its text), focalPoint `{ x, y }` of numbers from 0 to 100 (numeric
 * strings cast) or null, other keys passed over; every error at once, in the schema's key order.
 */
function checkInfo(v: unknown, at: string): FileInfo {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw validation(`${at} must be a \`object\` type`, { errors: [] });
  const o = v as Record<string, unknown>;
  const out: FileInfo = {};
  const issues: FieldError[] = [];
  const path = (...keys: string[]) => [...at.replace(/\[(\d+)\]/g, '.$1').split('.'), ...keys];
  const issue = (keys: string[], message: string, value: unknown) => issues.push({ path: path(...keys), message, name: 'ValidationError', ...(value !== undefined ? { value } : {}) });
  for (const k of INFO_KEYS) {
    const x = o[k];
    if (x === undefined) continue;
    // yup's string() casts a number (or a boolean) to its text (Strapi 5.54 stores `{"name":5}` as "5", checked live).
    if ((typeof x === 'number' && Number.isFinite(x)) || typeof x === 'boolean') { out[k] = String(x); continue; }
    if (x !== null && typeof x !== 'string') { issue([k], `${at}.${k} must be a \`string\` type, but the final value was: \`${show(x)}\`.`, x); continue; }
    out[k] = x;
  }
  // The image's focal point, stored as given (Strapi 5.54 keeps `{"x":1,"y":2}`, checked live).
  const fp = o.focalPoint;
  if (fp === null) out.focalPoint = null;
  else if (fp !== undefined) {
    if (!fp || typeof fp !== 'object' || Array.isArray(fp)) issue(['focalPoint'], `${at}.focalPoint must be a \`object\` type`, fp);
    else {
      const point: Record<string, number> = {};
      for (const c of ['x', 'y'] as const) {
        const raw = (fp as Record<string, unknown>)[c];
        const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
        const label = `${at}.focalPoint.${c}`;
        if (raw === undefined) issue(['focalPoint', c], `${label} is a required field`, raw);
        else if (typeof n !== 'number' || !Number.isFinite(n)) issue(['focalPoint', c], `${label} must be a \`number\` type`, raw);
        else if (n < 0) issue(['focalPoint', c], `${label} must be greater than or equal to 0`, n);
        else if (n > 100) issue(['focalPoint', c], `${label} must be less than or equal to 100`, n);
        else point[c] = n;
      }
      if (point.x !== undefined && point.y !== undefined) out.focalPoint = { x: point.x, y: point.y };
    }
  }
  // Other keys (`folder`, …) are passed over: Strapi 5.54's noUnknown never fires on them (checked live on
  // an upload, a multiple one and an update: `{"name":"y","folder":5}` renames the file).
  if (issues.length) throw fieldErrors(issues);
  return out;
}

function parseJson(text: string, at: string): unknown {
  checkJsonDepth(text);
  try { return JSON.parse(text); } catch { throw validation(`${at} must be valid JSON`, { errors: [] }); }
}

/** The fileInfo fields' JSON: one value, or a list of them when the field is repeated. */
function parsedInfo(raw: unknown[]): unknown {
  // An empty field is no information (what a form with nothing filled in sends).
  const values = raw.map((r, i) => (typeof r !== 'string' ? r : r.trim() === '' ? null : parseJson(r, raw.length > 1 ? `fileInfo[${i}]` : 'fileInfo')));
  return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
}

/** yup's cast error for a fileInfo of the wrong shape (Strapi 5.54, checked live). */
function shapeError(type: 'object' | 'array', v: unknown): ApiError {
  const message = `fileInfo must be a \`${type}\` type, but the final value was: \`null\` (cast from the value \`${show(v)}\`).`;
  return validation(message, { errors: [{ path: ['fileInfo'], message, name: 'ValidationError', value: null }] });
}

/**
 * The fileInfo of the files let in, by position, as Strapi 5.54's upload takes it: a list drops the
 * entries of refused files and a list of one left is that one object; then one file takes an object and
 * several a list (a list for one file, or an object for several, is yup's cast error).
 */
export function uploadInfos(value: unknown, refused: ReadonlySet<number>, count: number): FileInfo[] {
  let v = value;
  if (Array.isArray(v)) {
    const kept = v.filter((_, i) => !refused.has(i));
    v = kept.length === 1 ? kept[0] : kept;
  }
  if (count > 1) {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw shapeError('array', v);
    return v.map((x, i) => checkInfo(x, `fileInfo[${i}]`));
  }
  if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) throw shapeError('object', v);
  return [checkInfo(v, 'fileInfo')];
}

/**
 * `POST /api/upload?id=` without files: the fileInfo that edits the record. Strapi reads it as sent (no
 * upload parses it first): a field's text must be an object's JSON, and its cast error shows the text.
 */
export function editInfo(given: unknown, parsed: unknown): FileInfo {
  if (parsed === undefined || parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw shapeError('object', given);
  return checkInfo(parsed, 'fileInfo');
}

/** Reads the body; one that is not multipart has no files (Strapi then answers "Files are empty"). */
export function readForm(task: Task): UploadForm {
  const boundary = boundaryOf(task.contentType);
  if (!boundary || !task.body) {
    const given = jsonInfo(task);
    return { files: [], fileInfo: given === undefined ? undefined : parsedInfo([given]), fileInfoGiven: given, target: null };
  }
  let parts: Part[];
  try { parts = parseMultipart(task.body, boundary); } catch (e) {
    if (e instanceof MultipartError) throw validation(e.message, {});
    throw e;
  }
  const files: Incoming[] = [];
  const infos: string[] = [];
  const fields = new Map<string, string>();
  for (const p of parts) {
    if (p.filename !== null) {
      // A form submitted without choosing a file sends an empty part with an empty filename.
      if (p.name === 'files' && !(p.filename === '' && p.data.length === 0)) files.push({ filename: p.filename, contentType: p.contentType, data: p.data });
    } else if (p.name === 'fileInfo' || /^fileInfo\[\d*\]$/.test(p.name)) infos.push(p.data.toString('utf8'));
    else fields.set(p.name, p.data.toString('utf8'));
  }
  const { ref, refId, field } = Object.fromEntries(fields);
  // Strapi links the files only when all three are given; with one or two of them it is a plain upload (checked live).
  const target = ref && refId && field ? { ref, refId, field } : null;
  return { files, fileInfo: parsedInfo(infos), fileInfoGiven: infos.length > 1 ? infos : infos[0], target };
}

/** `POST /api/upload?id=` without files may carry fileInfo in a JSON body. */
function jsonInfo(task: Task): unknown {
  if (!task.body || !/json/i.test(task.contentType ?? '')) return undefined;
  const body = parseJson(Buffer.from(task.body).toString('utf8'), 'body');
  return body && typeof body === 'object' ? (body as Record<string, unknown>).fileInfo : undefined;
}
