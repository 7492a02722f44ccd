/** The one error the Prometheus client throws (server/fleet/prometheus-api.ts). */

/**
 * Why a query failed, in words a platform engineer can act on. `local`: a flag or a local file is wrong;
 * `too-big`: the answer is over the size or series cap; `timeout`: the answer did not arrive in time.
 */
export class PrometheusError extends Error {
  override name = 'PrometheusError';
  readonly kind: 'local' | 'unreachable' | 'unauthorized' | 'refused' | 'bad-query' | 'timeout' | 'too-big';
  constructor(kind: PrometheusError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}
