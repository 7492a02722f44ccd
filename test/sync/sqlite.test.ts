/** The sync server end to end on SQLite (node:sqlite, one file in a temp dir). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, vi } from 'vitest';
import { sqliteBackend } from './sqlite-backend.ts';
import { syncSuite } from './suite.ts';

// Generous: a loaded CI machine runs key generation, signatures and SQLite commits slowly.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'sync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

syncSuite('SQLite', () => sqliteBackend(dir));
