/** Reading and analysing PyTorch profiler (Kineto) traces: the facade the CLI, the worker and tests use. */
export { analyzeTraces, type TraceInput, type TraceReport } from './analyze.ts';
export { TraceError, type TraceErrorCode } from './errors.ts';
export { createTraceParser, parseTraceStream, type ParseOptions, type ParsedTrace, type TraceMeta } from './parse.ts';
export type { RankReport, RanksSummary } from './report-types.ts';
export type { TraceVerdict } from './verdict.ts';
