// SQL for Strapi's `files` table. Records are rendered by PostgreSQL in the key order of Strapi's file
// record (the same list compiler/sql.ts `media` renders for populate), so `formats`, stored as jsonb,
// comes out in jsonb's key order, which is what Strapi's PostgreSQL answers show too. The upload API
// (not populate) appends `isUrlSigned: false`. A new file goes into the folder Strapi puts Content API
// uploads in ("API Uploads", see folder.ts): `folder_path` and a `files_folder_lnk` row, as Strapi writes.
import type { Sql, TransactionSql } from 'postgres';
import { FILES, quoted as q } from '../../compiler/layout.ts';
import { deleteMediaOf, ownsMedia } from '../../compiler/write-sql.ts';
import { fileRecordColumns, pluginFileColumns } from '../../compiler/sql.ts';
import type { Schema } from '../../compiler/schema.ts';
import { UPLOAD_FOLDERS } from '../auth/tables.ts';
import type { Folder } from './folder.ts';

type Runner = Sql | TransactionSql;
const FF = UPLOAD_FOLDERS.fileFolder;
// Strapi writes JavaScript Dates: millisecond precision, UTC wall-clock (the session runs in UTC).
const NOW = `date_trunc('milliseconds', now())`;

/**
 * Select list of one file record from the row aliased `f`: with a project's extension of the file
 * (schema.pluginRecords), the populate's record (its added public scalars in attribute order) and `isUrlSigned`.
 */
export function recordColumns(f: string, schema?: Schema): string {
  if (schema?.pluginRecords?.file) {
    return [...fileRecordColumns(schema, f).map(([k, e]) => `${e} as ${q(k)}`), `false as "isUrlSigned"`].join(', ');
  }
  // jsonb values compacted as in every other answer (PostgreSQL's jsonb text has `"key": value` spacing).
  return [...pluginFileColumns(f).map(([k, e]) => `${e} as ${q(k)}`), `false as "isUrlSigned"`].join(', ');
}

/** What a row holds once the files are stored (the storage-facing part of a record). */
export interface FileRow {
  name: string;
  alternativeText: string | null;
  caption: string | null;
  width: number | null;
  height: number | null;
  focalPoint: { x: number; y: number } | null;
  /** Already in storage form; null for files that are not resizable images. */
  formats: Record<string, FormatEntry> | null;
  hash: string;
  ext: string;
  mime: string;
  /** KB, two decimals. */
  size: number;
  url: string;
  provider: string;
}

export interface FormatEntry {
  ext: string; url: string; hash: string; mime: string; name: string; path: null;
  size: number; width: number; height: number; sizeInBytes: number;
}

/** The parts of a stored record the plugin needs to find its files again. */
export interface StoredRecord { id: number; hash: string; ext: string; provider: string; formats: Record<string, FormatEntry> | null }

const one = async (run: Runner, text: string, params: unknown[]): Promise<string | null> => {
  const rows = await run.unsafe<Array<{ data: string | null }>>(text, params as never[]);
  return rows[0]?.data ?? null;
};

export class FileRecords {
  private t = q(FILES.table);
  /** The record's select list from `f` (the models may extend the file). */
  private readonly cols: string;
  /** The file's own media fields (an extension may add some), whose links name it as the related row. */
  private readonly ownMedia: string | null;
  constructor(schema?: Schema) {
    this.cols = recordColumns('f', schema);
    this.ownMedia = schema?.files && ownsMedia(schema.files) ? schema.files.uid : null;
  }

  /** A new record in `folder` (its path in folder_path, the file last in the folder's list). */
  insert(run: Runner, documentId: string, r: FileRow, folder: Folder): Promise<string | null> {
    return one(run, `with f as (insert into ${this.t} (document_id, name, alternative_text, caption, width, height, formats, hash, ext, mime, size, url, provider, folder_path, focal_point, created_at, updated_at, published_at)
      values ($1::text, $2::text, $3::text, $4::text, $5::integer, $6::integer, $7::text::jsonb, $8::text, $9::text, $10::text, $11::numeric, $12::text, $13::text, $14::text, $16::text::jsonb, ${NOW}, ${NOW}, ${NOW}) returning *),
      l as (insert into ${FF.table} (${FF.file}, ${FF.folder}, ${FF.order})
        select f.id, $15::integer, coalesce((select max(${FF.order}) from ${FF.table} where ${FF.folder} = $15::integer), 0) + 1 from f)
      select row_to_json(x)::text as data from (select ${this.cols} from f) x`,
    [documentId, r.name, r.alternativeText, r.caption, r.width, r.height, r.formats ? JSON.stringify(r.formats) : null, r.hash, r.ext, r.mime, r.size, r.url, r.provider,
      folder.path, folder.id, r.focalPoint ? JSON.stringify(r.focalPoint) : null]);
  }

  findOne(run: Runner, id: number): Promise<string | null> {
    return one(run, `select row_to_json(x)::text as data from (select ${this.cols} from ${this.t} f where f.id = $1::integer) x`, [id]);
  }

  /** Where a record's files are, or null; `lock` (inside a transaction) holds the row for a change. */
  async stored(run: Runner, id: number, lock: boolean): Promise<StoredRecord | null> {
    const rows = await run.unsafe<Array<{ id: string; hash: string; ext: string; provider: string; formats: Record<string, FormatEntry> | null }>>(
      `select id::text, hash, ext, provider, formats from ${this.t} where id = $1::integer${lock ? ' for update' : ''}`, [id]);
    const r = rows[0];
    return r ? { id: Number(r.id), hash: r.hash, ext: r.ext, provider: r.provider, formats: r.formats } : null;
  }

  /** fileInfo edit: a null or missing value keeps the current one (Strapi's _.isNil). */
  updateInfo(run: Runner, id: number, info: { name?: string | null; alternativeText?: string | null; caption?: string | null; focalPoint?: { x: number; y: number } | null }): Promise<string | null> {
    return one(run, `with f as (update ${this.t} set name = coalesce($2::text, name), alternative_text = coalesce($3::text, alternative_text),
      caption = coalesce($4::text, caption), focal_point = coalesce($5::text::jsonb, focal_point), updated_at = ${NOW} where id = $1::integer returning *)
      select row_to_json(x)::text as data from (select ${this.cols} from f) x`,
    [id, info.name ?? null, info.alternativeText ?? null, info.caption ?? null, info.focalPoint ? JSON.stringify(info.focalPoint) : null]);
  }

  /**
   * New content for an existing record (keeps id, hash and ext; alt text and caption unless given; width and height unless an image's). The
   * url and provider are the storing provider's: the same as before unless the provider was changed.
   */
  replace(run: Runner, id: number, r: FileRow): Promise<string | null> {
    return one(run, `with f as (update ${this.t} set name = $2::text, alternative_text = coalesce($3::text, alternative_text), caption = coalesce($4::text, caption), width = coalesce($5::integer, width),
      height = coalesce($6::integer, height), formats = $7::text::jsonb, mime = $8::text, size = $9::numeric, url = $10::text, provider = $11::text,
      focal_point = coalesce($12::text::jsonb, focal_point), updated_at = ${NOW} where id = $1::integer returning *)
      select row_to_json(x)::text as data from (select ${this.cols} from f) x`,
    // Strapi's replace starts the formats over from {} (checked live: a replacement with none keeps {}, not null);
    // a file that is no image sets no width or height, so the replaced image's stay (checked live).
    [id, r.name, r.alternativeText, r.caption, r.width, r.height, JSON.stringify(r.formats ?? {}), r.mime, r.size, r.url, r.provider,
      r.focalPoint ? JSON.stringify(r.focalPoint) : null]);
  }

  /**
   * Deletes the record; its folder link and its uses (files_related_mph) go by their foreign keys' cascade.
   * The links of its own media fields name it only as the related row, which no key cascades: deleted here,
   * in the caller's transaction, as Strapi's database layer deletes an entry's media links.
   */
  async delete(run: Runner, id: number): Promise<string | null> {
    if (this.ownMedia) await run.unsafe(deleteMediaOf, [[id], this.ownMedia]);
    return one(run, `with f as (delete from ${this.t} where id = $1::integer returning *)
      select row_to_json(x)::text as data from (select ${this.cols} from f) x`, [id]);
  }
}

/** Every file name a stored record occupies in the upload folder. */
export function storedFileNames(r: StoredRecord): string[] {
  return [`${r.hash}${r.ext}`, ...Object.values(r.formats ?? {}).map((f) => `${f.hash}${f.ext}`)];
}
