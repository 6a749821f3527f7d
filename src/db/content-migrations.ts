// What Strapi 5.54's core does to the rows when a content-type's `options.draftAndPublish` or
// `pluginOptions.i18n.localized` is switched (@strapi/core migrations/: draft-publish.ts and i18n.ts, run
// around its schema sync; checked on a live Strapi, test/fixtures/data-migrations/), done here in the
// schema migration's transaction:
// - before the schema changes: i18n switched off deletes the rows of every locale but the default one and
//   sets the default one's locale to null; draft & publish switched off deletes the drafts. Plain deletes,
//   as Strapi's: link rows and `_cmps` entries go with the rows (ON DELETE CASCADE), component rows and
//   media links stay behind unreferenced, as Strapi leaves them;
// - after: i18n switched on gives the rows without a locale the default locale; draft & publish switched
//   on makes a draft of every published row (Strapi's discardDraft: components cloned, media copied,
//   links toward the targets' drafts, one-way links of types without draft & publish given to it too).
// Attribute-level `localized` switches change no row in Strapi (checked live), nor here.
// Which types were switched comes from the flags recorded at the previous start (this server's record, or
// Strapi's own `strapi_content_types_schema` when taking over a database Strapi made); without any record
// nothing is migrated, as Strapi migrates nothing without its previous content-types.
import type { TransactionSql } from 'postgres';
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { RENDER } from '../../compiler/layout.ts';
import { Writer } from '../rest/writer.ts';

/** What the data migrations look at of a content-type. */
export interface ContentTypeFlags { draftAndPublish: boolean; localized: boolean }
export type FlagRecord = Record<string, ContentTypeFlags>;

export interface Switch { ct: ContentType; draftAndPublish?: 'on' | 'off'; i18n?: 'on' | 'off' }

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** The flags of the models' content-types (plugin types such as users are Strapi's, never switched). */
export function flagsOf(schema: Schema): FlagRecord {
  const out: FlagRecord = {};
  for (const ct of schema.contentTypes.values()) if (!ct.builtin) out[ct.uid] = { draftAndPublish: ct.draftAndPublish, localized: ct.localized };
  return out;
}

/** The content-types whose flags differ from the previous start's (types new since then are not switched). */
export function switchesOf(before: FlagRecord | null, schema: Schema): Switch[] {
  if (!before) return [];
  const out: Switch[] = [];
  for (const ct of schema.contentTypes.values()) {
    const was = before[ct.uid];
    if (!was || ct.builtin) continue;
    const s: Switch = { ct };
    if (was.draftAndPublish !== ct.draftAndPublish) s.draftAndPublish = ct.draftAndPublish ? 'on' : 'off';
    if (was.localized !== ct.localized) s.i18n = ct.localized ? 'on' : 'off';
    if (s.draftAndPublish || s.i18n) out.push(s);
  }
  return out;
}

/** Strapi's previous content-types (its core store), read as flags: what it would compare with at its next start. */
export async function strapiFlags(tx: TransactionSql): Promise<FlagRecord | null> {
  const rows = await tx<{ value: string | null }[]>`select value from strapi_core_store_settings where key = 'strapi_content_types_schema' limit 1`;
  if (!rows.length || rows[0].value === null) return null;
  let parsed: unknown;
  try { parsed = JSON.parse(rows[0].value); } catch { return null; }
  if (!parsed || typeof parsed !== 'object') return null;
  const out: FlagRecord = {};
  for (const [uid, ct] of Object.entries(parsed as Record<string, unknown>)) {
    const c = ct as { options?: { draftAndPublish?: unknown }; pluginOptions?: { i18n?: { localized?: unknown } } } | null;
    // Strapi's hasDraftAndPublish and isLocalizedContentType: `true`, nothing else.
    out[uid] = { draftAndPublish: c?.options?.draftAndPublish === true, localized: c?.pluginOptions?.i18n?.localized === true };
  }
  return out;
}

/**
 * Strapi's record of its content-types, when there is one, gets the new flags: a Strapi started on this
 * database later would otherwise run the same migrations again (recreating drafts over edited ones).
 */
export async function recordInStrapiStore(tx: TransactionSql, switches: Switch[]): Promise<void> {
  for (const s of switches) {
    await tx`update strapi_core_store_settings
                set value = jsonb_set(jsonb_set(value::jsonb, ${[s.ct.uid, 'options', 'draftAndPublish']}::text[], to_jsonb(${s.ct.draftAndPublish}::boolean), true),
                                      ${[s.ct.uid, 'pluginOptions']}::text[], coalesce(value::jsonb #> ${[s.ct.uid, 'pluginOptions']}::text[], '{}'::jsonb) || jsonb_build_object('i18n', coalesce(value::jsonb #> ${[s.ct.uid, 'pluginOptions', 'i18n']}::text[], '{}'::jsonb) || jsonb_build_object('localized', ${s.ct.localized}::boolean)), true)::text
              where key = 'strapi_content_types_schema' and value is not null and (value::jsonb) ? ${s.ct.uid}`;
  }
}

/** Strapi's i18n default locale (its core store), or the configured one. */
async function defaultLocale(tx: TransactionSql, configured: string): Promise<string> {
  const rows = await tx<{ value: string | null }[]>`select value from strapi_core_store_settings where key = 'plugin_i18n_default_locale' limit 1`;
  try { return rows.length && rows[0].value ? String(JSON.parse(rows[0].value)) : configured; } catch { return configured; }
}

async function exists(tx: TransactionSql, table: string): Promise<boolean> {
  const [{ ok }] = await tx<{ ok: boolean }[]>`select to_regclass(${q(table)}) is not null as ok`;
  return ok;
}

/** Strapi's beforeSync migrations (i18n, then draft & publish switched off). One line per change. */
export async function beforeSchemaChange(tx: TransactionSql, schema: Schema, switches: Switch[]): Promise<string[]> {
  const changes: string[] = [];
  const locale = await defaultLocale(tx, schema.defaultLocale);
  for (const s of switches) {
    if (s.i18n !== 'off' || !await exists(tx, s.ct.table)) continue;
    const t = q(s.ct.table);
    const gone = await tx.unsafe(`delete from ${t} where locale <> $1`, [locale]);
    const kept = await tx.unsafe(`update ${t} set locale = null where locale = $1`, [locale]);
    changes.push(`i18n switched off on ${s.ct.uid}: ${gone.count} rows of other locales than ${locale} deleted, ${kept.count} rows of ${locale} made non-localized`);
  }
  for (const s of switches) {
    if (s.draftAndPublish !== 'off' || !await exists(tx, s.ct.table)) continue;
    const gone = await tx.unsafe(`delete from ${q(s.ct.table)} where published_at is null`);
    changes.push(`draft & publish switched off on ${s.ct.uid}: ${gone.count} drafts deleted`);
  }
  return changes;
}

/** Strapi's afterSync migrations (i18n, then draft & publish switched on). One line per change. */
export async function afterSchemaChange(tx: TransactionSql, schema: Schema, switches: Switch[]): Promise<string[]> {
  const changes: string[] = [];
  const locale = await defaultLocale(tx, schema.defaultLocale);
  for (const s of switches) {
    if (s.i18n !== 'on') continue;
    const set = await tx.unsafe(`update ${q(s.ct.table)} set locale = $1 where locale is null`, [locale]);
    changes.push(`i18n switched on for ${s.ct.uid}: ${set.count} rows given the default locale ${locale}`);
  }
  for (const s of switches) {
    if (s.draftAndPublish !== 'on') continue;
    const rows = await tx.unsafe<Array<{ id: number }>>(`select id from ${q(s.ct.table)} where published_at is not null order by id`);
    await new Writer(schema, tx, s.ct).discardDrafts(rows.map((r) => Number(r.id)));
    changes.push(`draft & publish switched on for ${s.ct.uid}: ${rows.length} drafts made from the published rows`);
  }
  return changes;
}

/** The render cache of a switched type: its rows changed without a new `updated_at`, so no entry may be read again. */
export async function dropRenderCache(tx: TransactionSql, switches: Switch[]): Promise<void> {
  for (const s of switches) {
    const table = RENDER.table(s.ct.table);
    const [{ ok }] = await tx<{ ok: boolean }[]>`select to_regclass(${table}) is not null as ok`;
    if (ok) await tx.unsafe(`truncate ${table}`);
  }
}
