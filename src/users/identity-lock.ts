// Usernames and emails stay unique under concurrency, as unique attributes do (compiler/write-sql.ts's
// lockKey): a user write locks the values it sets, then checks them and writes, in one transaction.
// Of parallel registrations of one name, one commits; the others then see it taken. Nothing is added to
// Strapi's `up_users` (Strapi has no unique index there either).
import type { TransactionSql } from 'postgres';
import { lockKey } from '../../compiler/write-sql.ts';
import { UP } from '../auth/tables.ts';

/**
 * Locks the lower-cased values until the transaction ends; returns how many statements that took. One
 * namespace for both columns: Strapi's registration check matches an email against usernames too, and
 * the other way round. Sorted, so that two writers of the same two values cannot deadlock.
 */
export async function lockIdentities(tx: TransactionSql, values: Array<unknown>): Promise<number> {
  const keys = [...new Set(values.filter((v): v is string => typeof v === 'string').map((v) => `${UP.users}.identity=${JSON.stringify(v.toLowerCase())}`))].sort();
  for (const k of keys) await tx.unsafe(lockKey, [k]);
  return keys.length;
}
