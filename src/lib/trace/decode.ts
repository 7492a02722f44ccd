/**
 * UTF-8 bytes to text, piece by piece, for the trace parser. A trace is almost all ASCII, and Chromium's
 * UTF-8 `TextDecoder` is slow on it (about 30× slower than its single-byte decoder on 64 KB pieces of a trace,
 * bench/trace-browser.ts's machine), so a piece that is all ASCII is decoded as windows-1252 ("latin1"), which
 * gives the same characters for bytes under 0x80. It is used only while the UTF-8 decoder holds no part of a
 * character (nothing fed to it since an ASCII byte) and after it has read the file's first bytes (where it drops a
 * byte-order mark), so the text is exactly what the UTF-8 decoder alone gives. Node's UTF-8 decoder is already as
 * fast, so its file reader (scripts/trace-file.ts) turns the ASCII path off.
 */

/** Decodes the next piece; `last` ends the text (a character cut short at the end becomes U+FFFD). */
export type Decode = (bytes: Uint8Array, last: boolean) => string;

/**
 * A streaming UTF-8 decoder; with `asciiFast`, ASCII pieces go through the single-byte decoder.
 * @example createDecoder(true)(new TextEncoder().encode('{"a": "é"}'), true) // '{"a": "é"}'
 */
export function createDecoder(asciiFast = true): Decode {
  const utf8 = new TextDecoder('utf-8');
  const single = new TextDecoder('latin1');
  /** Bytes fed to the UTF-8 decoder so far (a byte-order mark is only dropped in the first 3). */
  let fed = 0;
  /** The UTF-8 decoder holds no part of a character: the last byte fed to it was ASCII. */
  let clean = true;
  return (bytes, last) => {
    if (asciiFast && fed >= 3 && clean && isAscii(bytes)) return single.decode(bytes);
    const text = utf8.decode(bytes, { stream: !last });
    fed += bytes.length;
    if (bytes.length > 0) clean = bytes[bytes.length - 1]! < 0x80;
    return text;
  };
}

/**
 * Whether every byte is under 0x80, read four at a time where aligned.
 * @example isAscii(new TextEncoder().encode('{"ts": 1}')) // true
 */
export function isAscii(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let i = 0;
  for (; i < n && (bytes.byteOffset + i) & 3; i++) if (bytes[i]! & 0x80) return false;
  if (i === n) return true;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (n - i) >> 2);
  for (let k = 0; k < words.length; k++) if (words[k]! & 0x80808080) return false;
  for (i += words.length * 4; i < n; i++) if (bytes[i]! & 0x80) return false;
  return true;
}
