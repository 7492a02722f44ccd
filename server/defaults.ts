/**
 * The lab server's defaults and exit codes, in one place: the CLI (server/cli.ts) parses flags over
 * them and builds its usage text from them, and `createServer` (server/app.ts) falls back to them.
 */

/** Every default a flag or `createServer` option can change. */
export const DEFAULTS = {
  /** Fixed so a bookmarked lab URL keeps working; `--port 0` picks a free one. */
  port: 8790,
  host: '127.0.0.1',
  source: 'auto',
  intervalMs: 500,
  /** With `--source prometheus:<url>`, how often the fleet is read (dcgm-exporter collects every 30 s). */
  fleetRefreshMs: 15_000,
  /** The shortest sampling interval the CLI accepts, ms. */
  minIntervalMs: 100,
  maxStreams: 32,
  /** Open connections (sockets) before requests get 503 with Retry-After. */
  maxConnections: 256,
  maxBodyBytes: 16 * 1024,
  heartbeatMs: 15_000,
  /** `--record-max`: a recording past this many bytes moves to FILE.1 and FILE starts again. */
  recordMaxBytes: 256 * 1024 * 1024,
  /** Ticks kept for Last-Event-ID resume (10 min at 500 ms). */
  capacity: 1200,
} as const;

/** Process exit codes of `npm start` and `npm run lab`, each with its meaning for the usage text. */
export const EXIT = {
  /** Stopped normally (Ctrl-C or SIGTERM). */
  OK: 0,
  /** Anything unexpected; the message says what. */
  ERROR: 1,
  /** A flag or environment variable is wrong (the usage follows the message). */
  USAGE: 2,
  /** The port is taken by another process. */
  PORT_IN_USE: 3,
  /** The source cannot start (`--source nvml` without a driver, a bad replay file). */
  SOURCE: 4,
  /** `--record FILE` cannot be opened (missing folder, read-only, a symlink, a full disk). */
  RECORD: 5,
} as const;
