// How read statements are planned (issue 31): PostgreSQL's JIT is off on the server's connections (it
// compiled every populate statement anew once bad estimates passed jit_above_cost).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, serverEnv, type TestServer } from './helpers.ts';
import { connect } from '../src/db/connect.ts';
import { loadConfig } from '../config.ts';

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

test('connections made by connect() run without JIT unless db.jit asks for it', async () => {
  const setting = async (jit?: boolean) => {
    const db = connect(s.server.databaseUrl, 1, jit === undefined ? {} : { jit });
    try { return (await db<Array<{ jit: string }>>`select current_setting('jit') as jit`)[0].jit; } finally { await db.end({ timeout: 5 }); }
  };
  assert.equal(await setting(), 'off');
  assert.equal(await setting(false), 'off');
  assert.equal(await setting(true), 'on');
  assert.equal(s.server.config.db.jit, false, 'off by default');
  assert.equal(loadConfig(serverEnv(s.db, s.server.config.modelsDir, { DB_JIT: 'true' }), []).db.jit, true);
});
