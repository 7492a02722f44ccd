/**
 * A Shiki transformer: every code block is a labelled group ("Code: text. Scrolls sideways if wide."),
 * so a screen reader that lands on the focusable block (Shiki gives it tabindex="0", which lets a
 * keyboard scroll it) hears what it is. The visible sign that it scrolls is CSS (src/styles/global.css).
 */
import type { ShikiTransformer } from 'shiki';

/** Adds role="group" and an aria-label naming the block's language to each `<pre>`. */
export const codeBlockLabel: ShikiTransformer = {
  name: 'saturate:code-block-label',
  pre(node) {
    const lang = this.options.lang && this.options.lang !== 'plaintext' ? this.options.lang : 'text';
    node.properties['role'] = 'group';
    node.properties['aria-label'] = `Code (${lang}); scroll sideways to read wide lines`;
  },
};
