// The data Strapi's users-permissions bootstrap writes on a fresh database: the Authenticated and
// Public roles when there is no role, and its default permissions when there is no permission. Run at
// every start, after the schema sync; a transaction-scoped advisory lock serializes nodes starting
// together, and the emptiness checks make it a no-op on any database Strapi (or we) already set up.
import type { Sql } from 'postgres';
import { newDocumentId } from '../db/document-id.ts';
import { DEFAULT_ROLE_ACTIONS } from './permissions.ts';
import { UP } from './tables.ts';

/** Strapi creates Authenticated first (id 1), then Public (its initialize()). */
const ROLES = [
  { name: 'Authenticated', description: 'Default role given to authenticated user.', type: 'authenticated' },
  { name: 'Public', description: 'Default role given to unauthenticated user.', type: 'public' },
] as const;

const LOCK_KEY = 'fastrapi.users-permissions.bootstrap';
const P = UP.permissionRole;
// Strapi writes JavaScript Dates: millisecond precision, UTC wall-clock (the session runs in UTC).
const NOW = `date_trunc('milliseconds', now())`;

export interface BootstrapResult { roles: number; permissions: number }

export async function bootstrapUsersPermissions(sql: Sql): Promise<BootstrapResult> {
  return sql.begin(async (tx) => {
    const [{ ready }] = await tx.unsafe<Array<{ ready: boolean }>>(
      `select to_regclass($1) is not null and to_regclass($2) is not null and to_regclass($3) is not null as ready`, [UP.roles, UP.permissions, P.table]);
    // No users-permissions tables: nothing of Strapi's to fill (the schema creator did not make them).
    if (!ready) return { roles: 0, permissions: 0 };
    await tx.unsafe('select pg_advisory_xact_lock(hashtext($1))', [LOCK_KEY]);
    let roles = 0, permissions = 0;
    const [{ n: roleCount }] = await tx.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${UP.roles}`);
    if (roleCount === 0) {
      for (const r of ROLES) {
        await tx.unsafe(`insert into ${UP.roles} (document_id, name, description, type, created_at, updated_at, published_at)
          values ($1, $2, $3, $4, ${NOW}, ${NOW}, ${NOW})`, [newDocumentId(), r.name, r.description, r.type]);
        roles++;
      }
    }
    const [{ n: permissionCount }] = await tx.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${UP.permissions}`);
    if (permissionCount === 0) {
      const existing = await tx.unsafe<Array<{ id: number; type: string }>>(`select id, type from ${UP.roles} order by id`);
      for (const role of existing) {
        const actions = DEFAULT_ROLE_ACTIONS[role.type as 'public' | 'authenticated'] ?? [];
        for (let i = 0; i < actions.length; i++) {
          await tx.unsafe(`with p as (insert into ${UP.permissions} (document_id, action, created_at, updated_at, published_at)
              values ($1, $2, ${NOW}, ${NOW}, ${NOW}) returning id)
            insert into ${P.table} (${P.permission}, ${P.role}, ${P.order}) select p.id, $3, $4 from p`, [newDocumentId(), actions[i], role.id, i + 1]);
          permissions++;
        }
      }
    }
    return { roles, permissions };
  });
}
