/**
 * Reads a `_headers` file (Netlify / Cloudflare Pages format) and applies it to a path, as those
 * hosts do: every rule whose pattern matches contributes its headers (`*` matches any characters).
 */
import type { HeaderRule } from '../../src/integrations/static-host.ts';

export type { HeaderRule };

/** Parses `_headers`: a path line, then indented `Name: value` lines; `#` starts a comment. */
export function parseHeadersFile(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      rules.push({ path: line.trim(), headers: {} });
      continue;
    }
    const m = /^\s+([^:\s]+):\s*(.*)$/.exec(line);
    const rule = rules.at(-1);
    if (!m || !rule) throw new Error(`_headers line ${i + 1} is neither a path nor "  Name: value": ${line}`);
    rule.headers[m[1]!] = m[2]!;
  }
  return rules;
}

/** The headers the rules give `path`; a header set by two rules is joined with ", " as the hosts do. */
export function headersFor(rules: readonly HeaderRule[], path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rule of rules) {
    const re = new RegExp(
      `^${rule.path
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    if (!re.test(path)) continue;
    for (const [name, value] of Object.entries(rule.headers)) out[name] = out[name] ? `${out[name]}, ${value}` : value;
  }
  return out;
}
