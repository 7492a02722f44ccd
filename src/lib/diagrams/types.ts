/** A static diagram: SVG that needs no script, with its accessible name and description. */
export interface DiagramDef {
  /** The name a card uses in `::diagram{name="…"}`. */
  name: string;
  /** Short accessible name (the SVG's <title>). */
  title: string;
  /** What the diagram shows, in words, for screen readers (the SVG's <desc>) and as its alt text. */
  desc: string;
  /** The caption under it. */
  caption: string;
  /** viewBox height (the width is always 320). */
  height: number;
  /** Inner SVG markup. */
  svg: string;
}
