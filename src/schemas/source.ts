import { z } from 'zod';

/** A citation: where a fact can be checked. */
export const SourceSchema = z.object({
  /** Human-readable title of the page, paper or document. */
  title: z.string().trim().min(3, 'Give the source a title a reader recognises (at least 3 characters).'),
  /** Absolute http(s) URL of the source. */
  url: z
    .string()
    .url('A source needs an absolute URL, e.g. https://docs.nvidia.com/...')
    .refine((u) => /^https?:\/\//.test(u), 'Source URLs must start with http:// or https://.'),
});
export type Source = z.output<typeof SourceSchema>;
