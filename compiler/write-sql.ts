// SQL text of writes on Strapi 5's layout: version rows, component rows and their `_cmps` entries,
// `files_related_mph` media links and relation `_lnk` rows. Pure: identifiers come from the models and
// compiler/layout.ts, every value is a `$n` parameter; src/rest/writer.ts runs these statements.
import { zoneComponents, type Component, type ContentType, type MorphJoin, type Schema } from './schema.ts';
import { CMPS, FILES, ROW_COLUMNS as R, type JoinTable, quoted as q } from './layout.ts';

const list = (cols: string[]) => cols.map(q).join(', ');
/** Strapi keeps JavaScript Date precision (milliseconds) in its timestamp columns. */
const NOW = `date_trunc('milliseconds', now())`;

/** Scalar columns of a content-type row (what a publish copies besides the system columns). */
export const dataColumns = (m: ContentType | Component): string[] =>
  m.attributes.flatMap((a) => (a.kind === 'scalar' ? [a.column] : []));

/** The owner's `_cmps` table (every component and dynamic-zone attribute of one model shares it). */
export function cmpsTableOf(m: ContentType | Component): string | null {
  for (const a of m.attributes) if (a.kind === 'component' || a.kind === 'dynamiczone') return a.cmpsTable;
  return null;
}

// ------------------------------------------------------------------ version rows

/**
 * A transaction-scoped lock on a key (`$1`, text), shared by every node of the database: writers of one
 * key queue until the holder commits or rolls back. Held locks are re-entrant within a transaction.
 */
export const lockKey = `select pg_advisory_xact_lock(hashtextextended($1::text, 0))`;

/**
 * The key every write of one document takes before it reads the document's rows. A single type's key is
 * the type's own: its first create and every later write queue on one key, so it never gets two documents.
 */
export const documentLockKey = (ct: ContentType, documentId: string): string =>
  ct.kind === 'singleType' ? `doc:${ct.table}` : `doc:${ct.table}:${documentId}`;

/**
 * Rows of one document, drafts first: `$1` document id. Run after the document's lock (lockKey), as a
 * statement of its own: in READ COMMITTED its snapshot is then taken once the previous writer committed,
 * so it sees the published row that writer made. No row is locked here: the write's row locks are taken
 * together, in one order, before it changes anything (src/rest/write-locks.ts).
 */
export const documentRows = (ct: ContentType) =>
  `select id, ${R.locale} as locale, ${R.publishedAt} is not null as published from ${q(ct.table)} where ${R.documentId} = $1 order by (${R.publishedAt} is null) desc, id`;

/**
 * The row lock modes of a write's lock set (src/rest/write-locks.ts): `no key update` for a document the
 * write changes (its own, a target it takes or whose list it renumbers), `share` for one it only links to
 * (writers linking to one document do not wait for each other; its own writer waits for them all).
 */
export type RowLockMode = 'no key update' | 'share';

/** Locks rows `$1` of `table` in id order (`nowait`: failing at once with 55P03 if another holds one). */
export const lockRows = (table: string, mode: RowLockMode, nowait = false) =>
  `select id from ${q(table)} where id = any($1::int[]) order by id for ${mode}${nowait ? ' nowait' : ''}`;

/**
 * The rows standing for documents `$1` in write locks: their drafts, which keep their ids for the
 * document's life (a publish replaces the published row); every row for a type without draft & publish.
 */
export const documentLockRows = (table: string, draftAndPublish: boolean) =>
  `select id, ${R.documentId} as document_id from ${q(table)} where ${R.documentId} = any($1::text[])${draftAndPublish ? ` and ${R.publishedAt} is null` : ''}`;

/** `$1` document id, `$2` locale, then `cols` in order; published now or not at all. */
export function insertRow(ct: ContentType, cols: string[], published: boolean): string {
  const values = cols.map((_, i) => `$${i + 3}`);
  return `insert into ${q(ct.table)} (${R.documentId}, ${R.locale}, ${R.createdAt}, ${R.updatedAt}, ${R.publishedAt}${cols.length ? ', ' + list(cols) : ''})
    values ($1, $2, ${NOW}, ${NOW}, ${published ? NOW : 'null'}${values.length ? ', ' + values.join(', ') : ''}) returning id`;
}

/** `$1` row id, then `cols` in order. */
export function updateRow(ct: ContentType, cols: string[]): string {
  // Without draft & publish every update publishes anew (Strapi's statusToData sets publishedAt on each write).
  const sets = [`${R.updatedAt} = ${NOW}`, ...(ct.draftAndPublish ? [] : [`${R.publishedAt} = ${NOW}`]), ...cols.map((c, i) => `${q(c)} = $${i + 2}`)];
  return `update ${q(ct.table)} set ${sets.join(', ')} where id = $1`;
}

/** `$1` document id, `$2` locale, `$3` published: that version's row id (the newest). */
export const versionRowId = (ct: ContentType) =>
  `select id from ${q(ct.table)} where ${R.documentId} = $1 and ${R.locale} is not distinct from $2::text and (${R.publishedAt} is not null) = $3 order by id desc limit 1`;

/** `$1` document id, `$2` locale, `$3` published: the rows of the document's other locales in that status. */
export const otherLocaleRows = (ct: ContentType) =>
  `select id from ${q(ct.table)} where ${R.documentId} = $1 and ${R.locale} is distinct from $2::text and (${R.publishedAt} is not null) = $3 order by id`;

/** Rows `$2` take the columns of row `$1` where they differ (non-localized attributes copied to other locales). */
export function copyColumns(ct: ContentType, cols: string[]): string {
  const sets = [`${R.updatedAt} = ${NOW}`, ...cols.map((c) => `${q(c)} = s.${q(c)}`)];
  return `update ${q(ct.table)} t set ${sets.join(', ')} from ${q(ct.table)} s where s.id = $1 and t.id = any($2::int[])
    and (${cols.map((c) => `t.${q(c)}`).join(', ')}, null) is distinct from (${cols.map((c) => `s.${q(c)}`).join(', ')}, null) returning t.id`;
}

/** Scalar values of a row (`$1` id), to share non-localized attributes with a new localization. */
export const rowValues = (ct: { table: string }, cols: string[]) => `select ${list(cols)} from ${q(ct.table)} where id = $1`;

/** `cols` of the rows whose ids are in `$1`, with their `id`. */
export const rowsValues = (ct: { table: string }, cols: string[]) => `select id, ${list(cols)} from ${q(ct.table)} where id = any($1::int[])`;

/** A published copy of draft `$1`: same document, locale, timestamps and authors (Strapi copies them); published now. */
export function publishRow(ct: ContentType): string {
  const cols = dataColumns(ct);
  const keep = [R.documentId, R.locale, R.createdAt, R.updatedAt, R.createdBy, R.updatedBy, ...cols];
  // clock_timestamp: Strapi's published_at is a moment of its own, after the draft's updated_at.
  return `insert into ${q(ct.table)} (${list(keep)}, ${R.publishedAt})
    select ${list(keep)}, date_trunc('milliseconds', clock_timestamp()) from ${q(ct.table)} where id = $1 returning id`;
}

/**
 * Strapi's discardDraft of published rows `$1`: drafts `$2` (ids taken beforehand) copied from them, with
 * their document, locale, timestamps and authors.
 */
export function draftRows(ct: ContentType): string {
  const keep = [R.documentId, R.locale, R.createdAt, R.updatedAt, R.createdBy, R.updatedBy, ...dataColumns(ct)];
  return `insert into ${q(ct.table)} (id, ${list(keep)}, ${R.publishedAt})
    select m.new, ${keep.map((c) => `s.${q(c)}`).join(', ')}, null from unnest($1::int[], $2::int[]) m(old, new) join ${q(ct.table)} s on s.id = m.old order by m.old`;
}

/** `$1` row ids. */
export const deleteRows = (table: string) => `delete from ${q(table)} where id = any($1::int[])`;

/** Any row of the model (single types have one document). */
export const anyDocument = (ct: ContentType) => `select ${R.documentId} as document_id from ${q(ct.table)} order by id limit 1`;

/**
 * Another document's published row already uses `$1` in `column` (same locale `$3`; `$2` the writing
 * document): a draft never counts, as in Strapi's unique validator. `chain`: the components from the row
 * down to the attribute's instance (each level's `_cmps` table and component table; its field and
 * component uid are `$4`, `$5`, …), empty for the row's own attribute.
 */
export function uniqueTaken(ct: ContentType, column: string, chain: ReadonlyArray<{ cmpsTable: string; table: string }> = []): string {
  let from = `${q(ct.table)} p`;
  let prev = 'p';
  chain.forEach((l, i) => {
    from += ` join ${q(l.cmpsTable)} c${i} on c${i}.${q(CMPS.entity)} = ${prev}.id and c${i}.${q(CMPS.field)} = $${4 + 2 * i}::text and c${i}.${q(CMPS.type)} = $${5 + 2 * i}::text join ${q(l.table)} k${i} on k${i}.id = c${i}.${q(CMPS.cmp)}`;
    prev = `k${i}`;
  });
  return `select 1 from ${from} where ${prev}.${q(column)} = $1 and p.${R.documentId} <> $2::text and p.${R.locale} is not distinct from $3::text and p.${R.publishedAt} is not null limit 1`;
}

// ------------------------------------------------------------------ components

/** `$1` table name: `$2` fresh ids of its serial sequence, taken ahead so clones map old → new exactly. */
export const nextIds = `select nextval(pg_get_serial_sequence($1::text, 'id'))::int as id from generate_series(1, $2::int)`;

/** A new component row with `cols` as `$1…`. */
export function insertComponent(c: Component, cols: string[]): string {
  if (!cols.length) return `insert into ${q(c.table)} default values returning id`;
  return `insert into ${q(c.table)} (${list(cols)}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}) returning id`;
}

/** `$1` component id, then `cols`. */
export const updateComponent = (c: Component, cols: string[]) =>
  `update ${q(c.table)} set ${cols.map((col, i) => `${q(col)} = $${i + 2}`).join(', ')} where id = $1`;

/** Copies of component rows `$1[i]` under the ids `$2[i]`. */
export function cloneComponents(c: Component): string {
  const cols = dataColumns(c);
  return `insert into ${q(c.table)} (id${cols.length ? ', ' + list(cols) : ''})
    select m.new${cols.map((x) => `, s.${q(x)}`).join('')} from unnest($1::int[], $2::int[]) m(old, new) join ${q(c.table)} s on s.id = m.old`;
}

/** Component entries of owner rows `$1`, in each field's order. */
export const cmpsOf = (table: string) =>
  `select ${CMPS.entity} as entity, ${CMPS.cmp} as cmp, ${CMPS.type} as type, ${CMPS.field} as field, ${q(CMPS.order)} as ord
   from ${q(table)} where ${CMPS.entity} = any($1::int[]) order by ${CMPS.entity}, ${CMPS.field}, ${q(CMPS.order)}, id`;

/** Removes fields `$2` of owners `$1`, returning what they held. */
export const deleteCmpsFields = (table: string) =>
  `delete from ${q(table)} where ${CMPS.entity} = any($1::int[]) and ${CMPS.field} = any($2::text[]) returning ${CMPS.cmp} as cmp, ${CMPS.type} as type`;

/** Entries `(entity, cmp, type, field, order)` given as parallel arrays `$1…$5`. */
export const insertCmps = (table: string) =>
  `insert into ${q(table)} (${CMPS.entity}, ${CMPS.cmp}, ${CMPS.type}, ${CMPS.field}, ${q(CMPS.order)})
   select * from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::float8[])`;

// ------------------------------------------------------------------ media

/** `$1` file ids: which exist, with their MIME type. */
export const filesById = `select id, mime from ${FILES.table} where id = any($1::int[])`;

/**
 * Whether a model's deleted rows leave media links behind: the links name a row as the related one, which
 * no foreign key cascades, so its delete runs deleteMediaOf in the same transaction (Strapi's database layer does).
 */
export const ownsMedia = (model: { attributes: ReadonlyArray<{ kind: string }> }): boolean => model.attributes.some((a) => a.kind === 'media');

/** Media links of rows `$1` of model `$2` (all fields). */
export const deleteMediaOf = `delete from ${FILES.related} where ${FILES.relatedId} = any($1::int[]) and ${FILES.relatedType} = $2`;

/** Removes fields `$3` of rows `$1` of type `$2` (their media links). */
export const deleteMediaFields = `delete from ${FILES.related} where ${FILES.relatedId} = any($1::int[]) and ${FILES.relatedType} = $2 and ${FILES.field} = any($3::text[])`;

/** Media links of row `$1`, model `$2`, field `$3`. */
export const deleteMediaField = `delete from ${FILES.related} where ${FILES.relatedId} = $1 and ${FILES.relatedType} = $2 and ${FILES.field} = $3`;

/** Files `$4` (in order) into row `$1`, model `$2`, field `$3`: `order` counts from 1 as Strapi's. */
export const insertMedia = `insert into ${FILES.related} (${FILES.file}, ${FILES.relatedId}, ${FILES.relatedType}, ${FILES.field}, ${q(FILES.order)})
  select u.f, $1, $2, $3, u.n from unnest($4::int[]) with ordinality u(f, n)`;

/** Files `$4` linked to row `$1` (model `$2`) in field `$3`, each with `order` 1 (an upload's `ref`: src/upload/attach.ts). */
export const linkFirst = `insert into ${FILES.related} (${FILES.file}, ${FILES.relatedId}, ${FILES.relatedType}, ${FILES.field}, ${q(FILES.order)})
  select u.f, $1::int, $2::text, $3::text, 1 from unnest($4::int[]) u(f)`;

/** Files `$1` (documentIds): their ids. */
export const filesByDocument = `select id, document_id from ${FILES.table} where document_id = any($1::text[])`;

/** Links of row `$1` (model `$2`) in field `$3` to files `$4` (a media connect or disconnect). */
export const deleteMediaFiles = `delete from ${FILES.related} where ${FILES.relatedId} = $1 and ${FILES.relatedType} = $2 and ${FILES.field} = $3 and ${FILES.file} = any($4::int[])`;

/**
 * Files `$4` (in order) connected to row `$1` (model `$2`), field `$3`: Strapi 5.54's entity manager
 * numbers them after the highest \`order\` the row has in any of its media fields.
 */
export const connectMedia = `insert into ${FILES.related} (${FILES.file}, ${FILES.relatedId}, ${FILES.relatedType}, ${FILES.field}, ${q(FILES.order)})
  select u.f, $1::int, $2::text, $3::text, coalesce((select max(x.${q(FILES.order)}) from ${FILES.related} x where x.${FILES.relatedId} = $1::int and x.${FILES.relatedType} = $2::text), 0) + u.n
  from unnest($4::int[]) with ordinality u(f, n)`;


/** The media links of rows `$1[i]` copied onto rows `$2[i]` (model `$3`; only fields `$4` unless null). */
export const cloneMedia = `insert into ${FILES.related} (${FILES.file}, ${FILES.relatedId}, ${FILES.relatedType}, ${FILES.field}, ${q(FILES.order)})
  select r.${FILES.file}, m.new, r.${FILES.relatedType}, r.${FILES.field}, r.${q(FILES.order)}
  from unnest($1::int[], $2::int[]) m(old, new) join ${FILES.related} r on r.${FILES.relatedId} = m.old and r.${FILES.relatedType} = $3
  where $4::text[] is null or r.${FILES.field} = any($4::text[])
  order by r.id`;

// ------------------------------------------------------------------ relations (a join table seen from the writing side)

/** Target rows of `$1` documents in `table`: id, document, locale, whether published. */
export const targetRows = (table: string) =>
  `select id, ${R.documentId} as document_id, ${R.locale} as locale, ${R.publishedAt} is not null as published from ${q(table)} where ${R.documentId} = any($1::text[]) order by id`;

/** Rows `$1` (numeric ids) of `table`: their document and locale. */
export const rowsById = (table: string) =>
  `select id, ${R.documentId} as document_id, ${R.locale} as locale from ${q(table)} where id = any($1::int[])`;

/** Current links of row `$1`, in this side's order, with the target's document. */
export const currentLinks = (j: JoinTable, targetTable: string) =>
  `select l.${q(j.target)} as target, t.${R.documentId} as document_id from ${q(j.table)} l join ${q(targetTable)} t on t.id = l.${q(j.target)}
   where l.${q(j.source)} = $1 order by ${j.order ? `l.${q(j.order)}, ` : ''}l.id`;

/** Removes every link of row `$1`, returning each target with its position in the target's list. */
export const deleteLinks = (j: JoinTable) =>
  `delete from ${q(j.table)} where ${q(j.source)} = $1 returning ${q(j.target)} as target${j.inverseOrder ? `, ${q(j.inverseOrder)} as inv` : ', null::float8 as inv'}`;

/**
 * The other side's positions of targets `$1` renumbered 1…n (ties by link id) after links to them were
 * removed, as Strapi's cleanOrderColumns leaves them.
 */
export const renumberInverse = (j: JoinTable) => j.inverseOrder
  ? `update ${q(j.table)} l set ${q(j.inverseOrder)} = r.n from (
       select id, row_number() over (partition by ${q(j.target)} order by ${q(j.inverseOrder)}, id) as n from ${q(j.table)} where ${q(j.target)} = any($1::int[])
     ) r where l.id = r.id and l.${q(j.inverseOrder)} is distinct from r.n`
  : null;

/**
 * Links from row `$1` to targets `$2` in this order (positions 1…n). A target keeps its place in the
 * other side's list (`$3`, from the links just removed); a new one goes last there, as Strapi's.
 */
export function insertLinks(j: JoinTable): string {
  const cols = [j.source, j.target, ...(j.order ? [j.order] : []), ...(j.inverseOrder ? [j.inverseOrder] : [])];
  const vals = ['$1', 'u.t', ...(j.order ? ['u.n'] : []),
    ...(j.inverseOrder ? [`coalesce(u.inv, (select max(x.${q(j.inverseOrder)}) from ${q(j.table)} x where x.${q(j.target)} = u.t) + 1, 1)`] : [])];
  return `insert into ${q(j.table)} (${list(cols)}) select ${vals.join(', ')} from unnest($2::int[], $3::float8[]) with ordinality u(t, inv, n) order by u.n`;
}

/**
 * The target rows a write is about to take from other documents, locked against each other's writers: two
 * documents connecting one target each found no link to take (neither saw the other's) and both linked it.
 * NO KEY UPDATE leaves the links' foreign-key checks (KEY SHARE) free; in id order, so writers never deadlock.
 */
export const lockTargets = (targetTable: string, nowait = false) => lockRows(targetTable, 'no key update', nowait);

/**
 * The other side holds one of this side (bidirectional oneToOne / oneToMany): targets `$1` leave the
 * rows of other documents than `$2` (rows of `sourceTable`).
 */
export const takeTargets = (j: JoinTable, sourceTable: string) =>
  `delete from ${q(j.table)} l using ${q(sourceTable)} s where l.${q(j.target)} = any($1::int[]) and s.id = l.${q(j.source)} and s.${R.documentId} <> $2`;

/**
 * The same after a publish copied its draft's links onto row `$1`: the targets the published row now
 * holds leave the rows of other documents (Strapi's publish writes the new row's relations as a create
 * does, and a create takes them: without this, the other document's published row kept them too).
 */
export const takeLinkedTargets = (j: JoinTable, sourceTable: string) =>
  `delete from ${q(j.table)} l using ${q(sourceTable)} s where l.${q(j.target)} in (select m.${q(j.target)} from ${q(j.table)} m where m.${q(j.source)} = $1) and s.id = l.${q(j.source)} and s.${R.documentId} <> (select o.${R.documentId} from ${q(sourceTable)} o where o.id = $1)`;

/**
 * On publish: the draft `$1`'s links copied onto the published row `$2`, each target replaced by its
 * published version (targets without draft & publish are their own); a target with no published version
 * is left out. `$3` is the published row being replaced (null on a first publish; always named, so that
 * PostgreSQL knows its type where no order column needs it).
 */
export function publishLinks(j: JoinTable, targetTable: string, targetHasDraft: boolean, status: 'published' | 'draft' = 'published', localizedSource: string | null = null, keepsPlaces = true): string {
  // A discarded draft (status `draft`) links to its targets' drafts the same way. From a localized type to
  // a localized one, the version in the source's locale (Strapi's getRelationTargetLocale: a draft's link to
  // another locale's row publishes as nothing when the target has no version in the source's locale).
  const locale = localizedSource ? `(select s.${R.locale} from ${q(localizedSource)} s where s.id = $2)` : null;
  const target = targetHasDraft ? versionOf(targetTable, `l.${q(j.target)}`, status, locale) : `l.${q(j.target)}`;
  const cols = [j.source, j.target, ...(j.order ? [j.order] : []), ...(j.inverseOrder ? [j.inverseOrder] : [])];
  // Strapi's bidirectional sync: a first publish takes the draft's place in the other side's list; a
  // republish keeps the place the previous published row had, and a target new since then goes last.
  // Without the sync (`keepsPlaces` false: WriteParams in src/rest/write.ts) each new link goes last, as a
  // create's. Last counts without the replaced row's links: Strapi deletes that row before it creates this one.
  const invCol = j.inverseOrder ? q(j.inverseOrder) : '';
  const last = `coalesce((select max(m.${invCol}) from ${q(j.table)} m where m.${q(j.target)} = x.t and m.${q(j.source)} is distinct from $3::int) + 1, 1)`;
  const inv = !j.inverseOrder ? '' : !keepsPlaces ? `, ${last}` : `, case when $3::int is null then x.inv else coalesce(
      (select o.${invCol} from ${q(j.table)} o where o.${q(j.source)} = $3::int and o.${q(j.target)} = x.t), ${last}) end`;
  return `insert into ${q(j.table)} (${list(cols)})
    select distinct on (x.t) $2, x.t${j.order ? ', x.ord' : ''}${inv}
    from (select ${target} as t, ${j.order ? `l.${q(j.order)}` : 'null::float8'} as ord, ${j.inverseOrder ? `l.${q(j.inverseOrder)}` : 'null::float8'} as inv, l.id
          from ${q(j.table)} l where l.${q(j.source)} = $1) x
    where x.t is not null${j.inverseOrder ? '' : ' and $3::int is not distinct from $3::int'} order by x.t, x.id`;
}

/** Links other rows hold to row `$1` (one-way relations toward it) move to row `$2`. */
export const repointLinks = (j: JoinTable) => `update ${q(j.table)} set ${q(j.target)} = $2 where ${q(j.target)} = $1`;

/**
 * Rows of a type without draft & publish link to both versions of a target: their links to draft `$1`
 * are given to the new published row `$2` too (those that do not have one yet).
 */
export function copyLinks(j: JoinTable): string {
  const cols = [j.source, ...(j.order ? [j.order] : [])];
  return `insert into ${q(j.table)} (${list(cols)}, ${q(j.target)})
    select ${cols.map((c) => `l.${q(c)}`).join(', ')}, $2 from ${q(j.table)} l
    where l.${q(j.target)} = $1 and not exists (select 1 from ${q(j.table)} x where x.${q(j.source)} = l.${q(j.source)} and x.${q(j.target)} = $2)
    order by l.id`;
}

// ------------------------------------------------------------ morph tables (morphToMany)

/** Links of owner row `$1` in its morph table, in order: related row id, its type and the link's field. */
export const morphLinks = (j: MorphJoin) =>
  `select ${q(j.id)} as id, ${q(j.type)} as type, ${q(j.field)} as field from ${q(j.table)} where ${q(j.owner)} = $1 order by ${q(j.order)}, id`;

export const deleteMorphLinks = (j: MorphJoin) => `delete from ${q(j.table)} where ${q(j.owner)} = $1`;

/** Links of owner row `$1`, numbered 1…n in the order given: related ids `$2`, types `$3`, fields `$4`. */
export const insertMorphLinks = (j: MorphJoin) =>
  `insert into ${q(j.table)} (${list([j.owner, j.id, j.type, j.field, j.order])})
   select $1, x.id, x.type, x.field, x.ord from unnest($2::int[], $3::text[], $4::text[]) with ordinality as x(id, type, field, ord)`;

/** The published row of the document (and locale) of row `$1` of a draft-and-publish table. */
export const publishedVersionOf = (table: string) =>
  `select p.id from ${q(table)} d join ${q(table)} p on p.${R.documentId} = d.${R.documentId} and p.${R.locale} is not distinct from d.${R.locale} and p.${R.publishedAt} is not null
   where d.id = $1 order by p.id desc limit 1`;

// ---------------------------------------------------------------- strapi.db.query's writes
// The Query Engine writes rows, not documents (src/project/query-engine-writes.ts): `where` is a condition
// over the row alias `r` whose parameters come first ($1…$n); the values follow.

/** One row of `cols`, valued `$1…` in order. */
export function engineInsert(ct: ContentType, cols: string[]): string {
  return `insert into ${q(ct.table)} (${list(cols)}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}) returning id`;
}

/** The first row `where` finds, with its document (the Query Engine's update and delete act on it alone, as Strapi's finds it first). */
export function engineFirst(ct: ContentType, where: string): string {
  return `select r.id, r.${R.documentId} as document_id from ${q(ct.table)} r where ${where} limit 1`;
}

/**
 * Row `$1` locked until the write ends, if it is still there (after its document's lock, as the REST
 * writers take theirs): writers of one row's links go in turn, each reading the links the one before left
 * (two at once would each rewrite the list they read, and link a target twice).
 */
export const engineLockRow = (ct: ContentType) => `select id from ${q(ct.table)} where id = $1 for no key update`;

/** `cols` set on every row `where` finds, valued from `$first` on. */
export function engineUpdate(ct: ContentType, cols: string[], where: string, first: number): string {
  return `update ${q(ct.table)} r set ${cols.map((c, i) => `${q(c)} = $${first + i}`).join(', ')} where ${where} returning r.id`;
}

/** Every row `where` finds removed (link tables follow by their foreign keys). */
export function engineDelete(ct: ContentType, where: string): string {
  return `delete from ${q(ct.table)} r where ${where} returning r.id`;
}

/** The media links of removed rows (`$1` their type's uid, `$2` their ids), which no foreign key removes (Strapi's deleteRelations does). */
export const engineMediaLinks = `delete from ${q(FILES.related)} where ${q(FILES.relatedType)} = $1 and ${q(FILES.relatedId)} = any($2::int[])`;

// ---------------------------------------------------------------- required links (api.documents.strictRelations)

/** The id a relation's entry shows in an error for a document it names: its published row first. */
export const documentRowId = (ct: ContentType): string =>
  `select id from ${q(ct.table)} where ${R.documentId} = $1 order by ${R.publishedAt} is null, id limit 1`;

/**
 * How many of row $1's links through `j` a published copy keeps: to a type without draft & publish, every
 * one; to a draft & publish type, those whose document has a published version (in the linked row's locale).
 */
export function keptLinks(j: JoinTable, target: ContentType): string {
  // The rule publishLinks copies links by: a draft & publish target counts when it has that version.
  const published = target.draftAndPublish ? ` and ${versionOf(target.table, `t.id`, 'published')} is not null` : '';
  return `select count(*)::int as n from ${q(j.table)} l join ${q(target.table)} t on t.id = l.${q(j.target)} where l.${q(j.source)} = $1${published}`;
}

/** The id of the version (published, or draft) of row `linked`'s document in its locale: null when there is none. */
function versionOf(targetTable: string, linked: string, status: 'published' | 'draft', locale: string | null = null): string {
  return `(select p.id from ${q(targetTable)} d join ${q(targetTable)} p on p.${R.documentId} = d.${R.documentId} and p.${R.locale} is not distinct from ${locale ?? `d.${R.locale}`} and p.${R.publishedAt} is ${status === 'published' ? 'not null' : 'null'} where d.id = ${linked} order by p.id desc limit 1)`;
}

/** How many files row $1 of type $2 holds in field $3. */
export const mediaLinkCount = `select count(*)::int as n from ${FILES.related} where ${FILES.relatedId} = $1 and ${FILES.relatedType} = $2 and ${FILES.field} = $3`;

// ------------------------------------------------------------------ non-localized attributes (i18n)

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * One comparable value of what a row shares with its document's other locales, as Strapi's i18n compares
 * them before syncing (copyNonLocalizedAttributes: the non-localized scalars but uids, components and zones
 * deep without their ids, media; a component's relations too). `alias` names the row.
 */
function sharedValue(schema: Schema, model: ContentType | Component, alias: string, depth: number): string {
  const top = 'kind' in model;
  const parts: string[] = [];
  for (const a of model.attributes) {
    if (top && a.localized) continue;
    if (a.kind === 'scalar') { if (!(top && a.type === 'uid')) parts.push(`${alias}.${q(a.column)}`); continue; }
    if (a.kind === 'media') {
      parts.push(`(select coalesce(json_agg(m.${FILES.file} order by m.${q(FILES.order)}, m.id), '[]') from ${FILES.related} m
        where m.${FILES.relatedId} = ${alias}.id and m.${FILES.relatedType} = ${lit(model.uid)} and m.${FILES.field} = ${lit(a.name)})`);
      continue;
    }
    if (a.kind === 'relation' && !top) {
      parts.push(`(select coalesce(json_agg(l.${q(a.join.target)} order by l.id), '[]') from ${q(a.join.table)} l where l.${q(a.join.source)} = ${alias}.id)`);
      continue;
    }
    if ((a.kind === 'component' || a.kind === 'dynamiczone') && depth < 8) {
      const uids = a.kind === 'component' ? [a.component] : zoneComponents(schema, a);
      const k = `k${depth}`;
      const each = uids.flatMap((uid) => {
        const c = schema.components.get(uid);
        return c ? [`when ${lit(uid)} then (select json_build_array(${sharedValue(schema, c, k, depth + 1) || 'null'}) from ${q(c.table)} ${k} where ${k}.id = c${depth}.${CMPS.cmp})`] : [];
      });
      parts.push(`(select coalesce(json_agg(json_build_array(c${depth}.${CMPS.type}, case c${depth}.${CMPS.type} ${each.join(' ')} end) order by c${depth}.${q(CMPS.order)}, c${depth}.id), '[]')
        from ${q(a.cmpsTable)} c${depth} where c${depth}.${CMPS.entity} = ${alias}.id and c${depth}.${CMPS.field} = ${lit(a.name)})`);
    }
  }
  return parts.join(', ');
}

/**
 * The non-localized value (sharedValue) of the document `$1`'s first row as Strapi's findOne by documentId
 * meets it: through the `<table>_documents_idx` index (document_id, locale, published_at), so the first
 * locale's published version before its draft (checked live).
 */
export function firstRowShared(schema: Schema, ct: ContentType): string {
  return `select json_build_array(${sharedValue(schema, ct, 't', 0) || 'null'})::text as v from ${q(ct.table)} t where t.${R.documentId} = $1
    order by t.${R.locale}, t.${R.publishedAt}, t.ctid limit 1`;
}

/** The non-localized value (sharedValue) of row `$1`. */
export function rowShared(schema: Schema, ct: ContentType): string {
  return `select json_build_array(${sharedValue(schema, ct, 't', 0) || 'null'})::text as v from ${q(ct.table)} t where t.id = $1`;
}

/** Strapi's lookup of the row a new localization copies from (copyNonLocalizedFields), as it sends it: `$1` the document. */
export const shareSourceRow = (ct: ContentType) => `select t0.id from ${q(ct.table)} t0 where t0.${R.documentId} = $1 order by t0.${R.publishedAt} desc limit 1`;
