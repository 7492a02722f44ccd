/** CLI entry of the sync server: `npm run sync-server -- [flags]` (see cli.ts or --help). */
import { parseSyncCli, SYNC_USAGE } from './cli.ts';
import { startSyncServer } from './server.ts';

try {
  const o = parseSyncCli(process.argv.slice(2));
  if (o.help) console.log(SYNC_USAGE);
  else {
    const s = await startSyncServer({
      host: o.host,
      port: o.port,
      data: o.data,
      ...(o.database ? { database: o.database } : {}),
      allowOrigin: o.allowOrigins,
      rpId: o.rpId,
      quotaBytes: o.quotaBytes,
      trustProxy: o.trustProxy,
    });
    console.log(`Saturate sync server on ${s.url}`);
    console.log(`  storage: ${o.database ? 'PostgreSQL' : `SQLite in ${o.data}`}; passkeys for ${o.rpId}`);
    if (o.allowOrigins.length === 0)
      console.log('  no --allow-origin: no site can use it from a browser yet (add --allow-origin https://your.site)');
    else console.log(`  allowed origins: ${o.allowOrigins.join(', ')}`);
    const stop = () => void s.stop().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
} catch (e) {
  const err = e as NodeJS.ErrnoException;
  console.error(
    err.code === 'EADDRINUSE' ? `Port in use: ${err.message}; pick another with --port.` : (err.message ?? String(e)),
  );
  process.exit(1);
}
