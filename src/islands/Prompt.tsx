/**
 * A question's prompt as the quiz shows it: its HTML from the build (paragraphs, inline `<code>`, a
 * scenario's `nvidia-smi` table as a preformatted block). The quiz and its results both render it.
 */
import type { RefObject } from 'react';

interface Props {
  html: string;
  id?: string;
  /** The quiz moves focus here when a question comes up. */
  promptRef?: RefObject<HTMLDivElement | null>;
}

export function Prompt({ html, id, promptRef }: Props) {
  return (
    <div
      id={id}
      className="prompt"
      ref={promptRef}
      tabIndex={promptRef ? -1 : undefined}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
