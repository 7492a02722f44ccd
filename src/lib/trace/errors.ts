/** Why a trace could not be read. Each message says what to do about it. */

/** The kinds of unreadable input, for tests and the CLI's exit code. */
export type TraceErrorCode =
  'empty' | 'not-json' | 'truncated' | 'gzip' | 'not-a-trace' | 'no-gpu' | 'ranks' | 'read' | 'too-large';

/** A trace that cannot be analysed; `message` tells the user what to do. */
export class TraceError extends Error {
  readonly code: TraceErrorCode;
  constructor(code: TraceErrorCode, message: string) {
    super(message);
    this.name = 'TraceError';
    this.code = code;
  }
}
