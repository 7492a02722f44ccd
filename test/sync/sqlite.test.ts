/** The sync server end to end on SQLite (node:sqlite, one file in a temp dir). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteBackend } from './sqlite-backend.ts';
import { syncSuite } from './suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'sync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

syncSuite('SQLite', () => sqliteBackend(dir));
