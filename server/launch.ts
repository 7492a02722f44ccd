/**
 * Starts a lab server from parsed flags: picks the source, opens the recording, listens, prints its notes
 * (why it simulates, wrapped) and then the URL with its token, and shuts down cleanly on SIGINT/SIGTERM
 * (streams ended, NVML shut down, the recording flushed). Shared by server/main.ts (`npm run lab`) and scripts/start.ts (`npm start`).
 */
import type { AddressInfo } from 'node:net';
import { createServer, type LabServer } from './app.ts';
import { ExitError, type CliOptions } from './cli.ts';
import { EXIT } from './defaults.ts';
import { NvmlError } from './nvml/errors.ts';
import { openRecorder, type Recorder } from './recorder.ts';
import { memoryReducingGc } from './settle.ts';
import { resolveSource } from './sources/index.ts';
import { terminalReason, wrapText } from './terminal.ts';
import { chooseToken, type TokenChoice } from './token.ts';

/** A running server. */
export interface Launched {
  url: string;
  port: number;
  lab: LabServer;
  stop(): Promise<void>;
}

/** Formats a host for a URL (IPv6 in brackets; wildcard binds shown as loopback). */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts the server; resolves once it listens. @throws Error with a message saying what to change. */
export async function launch(
  options: CliOptions,
  io: {
    print?: (line: string) => void;
    log?: (line: string) => void;
    handleSignals?: boolean;
    /** Where the kept token's folder is looked up ($XDG_CONFIG_HOME); default process.env. */
    env?: Readonly<Record<string, string | undefined>>;
  } = {},
): Promise<Launched> {
  const print = io.print ?? ((l: string) => console.log(l));
  const log = io.log ?? ((l: string) => console.error(l));
  const env = io.env ?? process.env;
  let chosen: TokenChoice;
  try {
    chosen = chooseToken({ flag: options.token, file: options.tokenFile, env, newToken: options.newToken });
  } catch (e) {
    throw new ExitError(EXIT.USAGE, e instanceof Error ? e.message : String(e));
  }
  let source;
  try {
    source = await resolveSource(options.source, {
      log,
      prometheus: options.prometheus,
      intervalMs: options.intervalMs,
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // A driver or file problem is the machine's; anything else is a bad --source value.
    const machine =
      e instanceof NvmlError || options.source.startsWith('replay:') || options.source.startsWith('prometheus:');
    throw new ExitError(machine ? EXIT.SOURCE : EXIT.USAGE, message);
  }
  let recorder: Recorder | null = null;
  if (options.record) {
    try {
      recorder = openRecorder(options.record, {
        maxBytes: options.recordMaxBytes,
        source: source.id,
        intervalMs: options.intervalMs,
        log,
      });
    } catch (e) {
      source.close();
      throw new ExitError(EXIT.RECORD, e instanceof Error ? e.message : String(e));
    }
  }
  const lab = createServer({
    source,
    intervalMs: options.intervalMs,
    host: options.host,
    allowOrigins: options.allowOrigins,
    maxStreams: options.maxStreams,
    maxConnections: options.maxConnections,
    staticDir: options.staticDir,
    dcgmHostname: options.dcgmHostname,
    log,
    token: chosen.token,
    settleMemory: memoryReducingGc(),
    ...(recorder ? { onTick: (t) => recorder?.write(t), recording: () => recorder?.status() ?? null } : {}),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      lab.server.once('error', reject);
      lab.server.listen(options.port, options.host, () => {
        lab.server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await lab.close();
    await recorder?.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new ExitError(
        EXIT.PORT_IN_USE,
        `Port ${options.port} is in use: pass --port 0 to pick a free one, or stop the other server.`,
      );
    if (code === 'EADDRNOTAVAIL')
      throw new ExitError(EXIT.USAGE, `Cannot bind ${options.host}: it is not an address of this machine.`);
    throw e;
  }
  const port = (lab.server.address() as AddressInfo).port;
  const url = `http://${urlHost(options.host)}:${port}/?token=${lab.token}`;
  // Notes first, the URL last: it is the line to copy, so nothing scrolls it away.
  if (source.reason && source.simulated) log(wrapText(`Simulated GPU: ${terminalReason(source.reason)}`));
  if (chosen.created && options.newToken)
    log(wrapText(`New token saved in ${chosen.path}: URLs with the old one no longer work.`));
  else if (chosen.created) log(wrapText(`Token saved in ${chosen.path}: this URL keeps working across restarts.`));
  print(`Saturate lab server on ${url} (source: ${source.id}${source.simulated ? ', simulated' : ''})`);
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await lab.close();
      await recorder?.close();
    })());
  if (io.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) process.exit(130); // a second Ctrl-C: do not wait any longer
      log(`\n${signal}: shutting down`);
      void stop().then(() => process.exit(0));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return { url, port, lab, stop };
}
