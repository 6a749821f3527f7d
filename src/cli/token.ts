// `npm run token -- create --name web --type read-only|full-access|custom [--permissions a,b] [--days 7|30|90] [--description text]`
// `npm run token -- list` · `npm run token -- revoke --name web`
// Tokens go into Strapi's `strapi_api_tokens` as its admin creates them (kind content-api, a 256-hex-digit
// access key stored as HMAC-SHA512 with API_TOKEN_SALT, lifespan 7/30/90 days or unlimited, custom
// actions in strapi_api_token_permissions); the access key is printed once. `encrypted_key` stays null:
// Strapi's admin then cannot show the key again, which it handles (it only decrypts a non-null one).
import { randomBytes } from 'node:crypto';
import { loadServerConfig } from '../project/config-files.ts';
import { loadModels } from '../models.ts';
import { openDatabase } from './database.ts';
import { syncSchema } from '../db/schema-sync.ts';
import { ACTIONS, hashToken } from '../auth/permissions.ts';
import { API_TOKENS } from '../auth/tables.ts';
import { insertToken } from '../auth/store.ts';
import { newDocumentId } from '../db/document-id.ts';
import { setLogLevel } from '../log.ts';
import type { Schema } from '../../compiler/schema.ts';

const [command, ...rest] = process.argv.slice(2);
const flag = (name: string) => { const i = rest.indexOf(`--${name}`); return i >= 0 ? rest[i + 1] : undefined; };

/** Strapi's API_TOKEN_LIFESPANS (days); anything else its admin refuses. */
const LIFESPAN_DAYS = [7, 30, 90];
const T = API_TOKENS.permissionToken;
const NOW = `date_trunc('milliseconds', now())`;

function usage(): never {
  console.error('usage: npm run token -- create --name NAME --type full-access|read-only|custom [--permissions p1,p2] [--days 7|30|90] [--description TEXT]\n       npm run token -- list\n       npm run token -- revoke --name NAME');
  process.exit(2);
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

/** Content API actions a custom token may carry: the content-types' and the plugins' we serve. */
function knownActions(schema: Schema): Set<string> {
  return new Set([
    ...[...schema.contentTypes.values()].filter((c) => !c.builtin).flatMap((c) => ACTIONS.map((a) => `${c.uid}.${a}`)),
    ...['find', 'findOne', 'upload', 'destroy'].map((a) => `plugin::upload.content-api.${a}`),
    ...['find', 'findOne', 'me', 'count', 'create', 'update', 'destroy'].map((a) => `plugin::users-permissions.user.${a}`),
    ...['find', 'findOne', 'createRole', 'updateRole', 'deleteRole'].map((a) => `plugin::users-permissions.role.${a}`),
    'plugin::users-permissions.permissions.getPermissions', 'plugin::i18n.locales.listLocales',
  ]);
}

async function main(): Promise<void> {
  if (!['create', 'list', 'revoke'].includes(command ?? '')) usage();
  const { config } = await loadServerConfig(process.env, []);
  setLogLevel('warn');
  const schema = loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields });
  const db = await openDatabase(config);
  const sql = db.sql;
  try {
    await syncSchema(sql, schema, false, config.db.schema);
    if (command === 'list') {
      const rows = await sql.unsafe(`select t.name, t.kind, t.type, t.expires_at, t.last_used_at, t.created_at,
          coalesce((select array_agg(p.action order by l.${T.order}) from ${T.table} l join ${API_TOKENS.permissions} p on p.id = l.${T.permission}
            where l.${T.token} = t.id), '{}') as permissions
        from ${API_TOKENS.table} t order by t.name, t.id`);
      for (const r of rows) console.log(JSON.stringify(r));
      return;
    }
    const name = flag('name');
    if (!name) usage();
    if (command === 'revoke') {
      const r = await sql.unsafe(`delete from ${API_TOKENS.table} where name = $1 returning id`, [name]);
      console.log(r.length ? `revoked ${name}` : `no token named ${name}`);
      if (!r.length) process.exitCode = 1;
      return;
    }
    const type = flag('type') ?? 'read-only';
    if (!['full-access', 'read-only', 'custom'].includes(type)) usage();
    const permissions = type === 'custom' ? [...new Set((flag('permissions') ?? '').split(',').map((s) => s.trim()).filter(Boolean))] : [];
    if (type === 'custom' && !permissions.length) fail('a custom token needs --permissions');
    if (type !== 'custom' && flag('permissions')) fail('only custom tokens take --permissions');
    const known = knownActions(schema);
    const unknown = permissions.filter((p) => !known.has(p));
    if (unknown.length) fail(`Unknown permissions provided: ${unknown.join(', ')}`);
    const days = flag('days');
    if (days !== undefined && !LIFESPAN_DAYS.includes(Number(days))) fail(`--days must be one of ${LIFESPAN_DAYS.join(', ')} (or left out: unlimited)`);
    const lifespan = days === undefined ? null : Number(days) * 86_400_000;
    const key = randomBytes(128).toString('hex');
    const created = await sql.begin(async (tx) => {
      // Strapi's admin refuses a second token with the same name.
      const clash = await tx.unsafe(`select 1 from ${API_TOKENS.table} where name = $1 limit 1`, [name]);
      if (clash.length) return false;
      const tokenId = await insertToken(tx, { name, description: flag('description') ?? '', type, accessKeyHash: hashToken(key, config.auth.apiTokenSalt).toString('hex'), encryptedKey: null, lifespan });
      for (let i = 0; i < permissions.length; i++) {
        await tx.unsafe(`with p as (insert into ${API_TOKENS.permissions} (document_id, action, created_at, updated_at, published_at)
            values ($1, $2, ${NOW}, ${NOW}, ${NOW}) returning id)
          insert into ${T.table} (${T.permission}, ${T.token}, ${T.order}) select p.id, $3, $4 from p`, [newDocumentId(), permissions[i], tokenId, i + 1]);
      }
      return true;
    });
    if (!created) fail(`a token named ${name} already exists`);
    console.log(`token "${name}" (${type}) created. Access key, shown only now:\n${key}`);
  } finally {
    await db.close();
  }
}

main().catch((e) => { console.error((e as Error).message); process.exit(1); });
