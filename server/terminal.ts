/** Text for the terminal: lines wrapped to a width, and a source's reason without its long technical detail. */

/**
 * `text` wrapped at word boundaries to lines of at most `width` characters (a longer word stays whole), each
 * line after `indent`.
 * @example wrapText('a b c', 3, '') // 'a b\nc'
 */
export function wrapText(text: string, width = 100, indent = '  '): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

/**
 * A simulated source's reason for the terminal: the library's long detail in parentheses (every file name
 * dlopen tried, 200+ characters) left out; what happened and what to do stay.
 * @example terminalReason('NVML library not found (NVML 12) in dlopen (libnvidia-ml.so.1: cannot open …; …). Install …')
 *   // 'NVML library not found (NVML 12) in dlopen. Install …'
 */
export function terminalReason(reason: string): string {
  return reason.replace(/ \((?:[^()]|\([^()]*\)){60,}\)/g, '');
}
