/** A scenario prompt as a card writes it: a first sentence with inline code, an nvidia-smi dmon table, a question. */
export const DMON_PROMPT = [
  'A job on one H100 is slow. Over 5 s, `nvidia-smi dmon -d 1` shows:',
  '',
  '```text',
  '# gpu    sm   mem',
  '# Idx     %     %',
  '    0    12     3',
  '    0    97    41',
  '```',
  '',
  'What is the GPU waiting for?',
].join('\n');
