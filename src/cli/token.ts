// `npm run token -- create --name web --type read-only [--permissions api::article.article.find,...] [--days 30]`
// `npm run token -- list` · `npm run token -- revoke --name web`
// Tokens are stored as HMAC-SHA512(accessKey, API_TOKEN_SALT); the access key is printed once.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config.ts';
import { loadModels } from '../models.ts';
import { connect } from '../db/connect.ts';
import { startEmbedded, EMBEDDED_URL_FILE, type EmbeddedDb } from '../db/embedded.ts';
import { syncSchema } from '../db/schema-sync.ts';
import { hashToken } from '../auth/permissions.ts';
import { newDocumentId } from '../rest/write.ts';
import { setLogLevel } from '../log.ts';

const [command, ...rest] = process.argv.slice(2);
const flag = (name: string) => { const i = rest.indexOf(`--${name}`); return i >= 0 ? rest[i + 1] : undefined; };

function usage(): never {
  console.error('usage: npm run token -- create --name NAME --type full-access|read-only|custom [--permissions p1,p2] [--days N]\n       npm run token -- list\n       npm run token -- revoke --name NAME');
  process.exit(2);
}

async function main(): Promise<void> {
  if (!['create', 'list', 'revoke'].includes(command ?? '')) usage();
  const config = loadConfig(process.env, []);
  setLogLevel('warn');
  const schema = loadModels(config.modelsDir, config.i18n);
  let url = config.databaseUrl;
  let embedded: EmbeddedDb | null = null;
  const urlFile = join(config.dataDir, EMBEDDED_URL_FILE);
  if (!url && existsSync(urlFile)) url = readFileSync(urlFile, 'utf8').trim();
  if (!url) { embedded = await startEmbedded(config.dataDir, config.db.embeddedPort); url = embedded.url; }
  const sql = connect(url, 1, false);
  try {
    await syncSchema(sql, schema, false);
    if (command === 'list') {
      const rows = await sql`select name, type, permissions, expires_at, last_used_at, created_at from api_tokens order by id`;
      for (const r of rows) console.log(JSON.stringify(r));
      return;
    }
    const name = flag('name');
    if (!name) usage();
    if (command === 'revoke') {
      const r = await sql`delete from api_tokens where name = ${name} returning id`;
      console.log(r.length ? `revoked ${name}` : `no token named ${name}`);
      if (!r.length) process.exitCode = 1;
      return;
    }
    const type = flag('type') ?? 'read-only';
    if (!['full-access', 'read-only', 'custom'].includes(type)) usage();
    const permissions = type === 'custom' ? (flag('permissions') ?? '').split(',').map((s) => s.trim()).filter(Boolean) : null;
    if (type === 'custom' && !permissions?.length) { console.error('a custom token needs --permissions'); process.exit(2); }
    const days = flag('days');
    const key = randomBytes(48).toString('hex');
    await sql`insert into api_tokens (document_id, name, type, permissions, access_key, expires_at)
      values (${newDocumentId()}, ${name}, ${type}, ${permissions}, ${hashToken(key, config.auth.apiTokenSalt).toString('hex')},
              ${days ? new Date(Date.now() + Number(days) * 86400_000) : null})`;
    console.log(`token "${name}" (${type}) created. Access key, shown only now:\n${key}`);
  } finally {
    await sql.end({ timeout: 5 });
    if (embedded) await embedded.stop();
  }
}

main().catch((e) => { console.error((e as Error).message); process.exit(1); });
