/**
 * A small Chrome DevTools Protocol client over the browser's WebSocket (Chromium started with
 * --remote-debugging-port), with flat sessions: what benchmarks need that Playwright's CDPSession cannot do,
 * such as talking to a page's dedicated Worker (its heap, its CPU throttling) from the moment it starts.
 */
type Json = Record<string, unknown>;

/** One browser-level connection. */
export class Cdp {
  private next = 1;
  private readonly waiting = new Map<number, { ok: (v: Json) => void; fail: (e: Error) => void }>();
  private readonly attached = new Map<string, (child: string, type: string) => void>();
  private readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.addEventListener('message', (e) => this.receive(JSON.parse(String(e.data)) as Json));
  }

  /** Connects to the browser listening on `port` (retrying while it starts). */
  static async connect(port: number): Promise<Cdp> {
    let url = '';
    for (let i = 0; i < 100 && !url; i++) {
      url = await fetch(`http://127.0.0.1:${port}/json/version`)
        .then((r) => r.json() as Promise<Json>)
        .then((j) => String(j['webSocketDebuggerUrl']))
        .catch(() => new Promise<string>((r) => setTimeout(() => r(''), 100)));
    }
    if (!url) throw new Error(`no DevTools endpoint on port ${port}`);
    const ws = new WebSocket(url);
    await new Promise((ok, fail) => {
      ws.addEventListener('open', ok, { once: true });
      ws.addEventListener('error', fail, { once: true });
    });
    return new Cdp(ws);
  }

  /** Sends a command, to the browser or to a flat session. */
  send(method: string, params: Json = {}, sessionId?: string): Promise<Json> {
    const id = this.next++;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((ok, fail) => this.waiting.set(id, { ok, fail }));
  }

  /** The browser's targets. */
  async targets(): Promise<{ targetId: string; type: string; url: string }[]> {
    const r = await this.send('Target.getTargets');
    return r['targetInfos'] as { targetId: string; type: string; url: string }[];
  }

  /** Attaches to a target with a flat session; returns its session id. */
  async attach(targetId: string): Promise<string> {
    const r = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return String(r['sessionId']);
  }

  /** Calls `fn` with the session and type of each target auto-attached under `parent` (after Target.setAutoAttach). */
  onAttached(parent: string, fn: (child: string, type: string) => void): void {
    this.attached.set(parent, fn);
  }

  close(): void {
    this.ws.close();
  }

  private receive(m: Json): void {
    if (typeof m['id'] === 'number') {
      const w = this.waiting.get(m['id']);
      this.waiting.delete(m['id']);
      if (m['error']) w?.fail(new Error(JSON.stringify(m['error'])));
      else w?.ok((m['result'] ?? {}) as Json);
    } else if (m['method'] === 'Target.attachedToTarget' && typeof m['sessionId'] === 'string') {
      const p = m['params'] as Json;
      const info = (p['targetInfo'] ?? {}) as Json;
      this.attached.get(m['sessionId'])?.(String(p['sessionId']), String(info['type']));
    }
  }
}
