// @ts-check
import { defineConfig } from 'astro/config';
import react from '@astrojs/react';
import AstroPWA from '@vite-pwa/astro';
import { satteri } from '@astrojs/markdown-satteri';
import search from './src/integrations/search.ts';
import { figureDirective } from './src/integrations/figure-directive.ts';
import staticHost from './src/integrations/static-host.ts';
import { normaliseBasePath } from './src/lib/base-path.ts';
import { codeBlockLabel } from './src/integrations/code-block-label.ts';
import { precacheTransform } from './src/integrations/precache.ts';

// `BASE_PATH=/saturate/ npm run build` puts the whole site (links, assets, manifest, service worker,
// search index, question bank) under that path, for hosts such as GitHub Pages; `SITE_URL` sets the
// canonical URLs and the sitemap. `OUT_DIR` builds somewhere other than dist/ (the tests' dist-base/).
const base = normaliseBasePath(process.env['BASE_PATH']);
const site = process.env['SITE_URL'] || 'https://saturate.local';
const outDir = process.env['OUT_DIR'] || 'dist';

export default defineConfig({
  site,
  base,
  outDir,
  trailingSlash: 'ignore',
  build: { format: 'directory' },
  server: { host: '127.0.0.1' },
  // Code blocks: the high-contrast GitHub theme keeps comments readable (github-dark's are 3:1, under WCAG AA).
  // `::figure{name="…"}` lines in cards become explorable figures (src/integrations/figure-directive.ts).
  markdown: {
    shikiConfig: { theme: 'github-dark-high-contrast', transformers: [codeBlockLabel] },
    processor: satteri({ mdastPlugins: [figureDirective] }),
  },
  integrations: [
    react(),
    // Must come before AstroPWA: the search index it writes is precached by the service worker.
    search(),
    staticHost(),
    AstroPWA({
      registerType: 'prompt',
      injectRegister: false,
      pwaAssets: { config: true, overrideManifestIcons: true },
      manifest: {
        id: base,
        name: 'Saturate: keep your GPUs busy',
        short_name: 'Saturate',
        description: 'Learn GPU utilization from short cards, quizzes and live labs.',
        start_url: base,
        scope: base,
        display: 'standalone',
        orientation: 'portrait',
        theme_color: '#0b6b4f',
        background_color: '#fbfbf8',
        categories: ['education', 'developer'],
      },
      // Our own worker (src/sw/sw.ts): each page precached once and answered with or without its trailing slash,
      // the shell first; the first worker takes control at once, later ones wait for the learner's "Reload".
      strategies: 'injectManifest',
      srcDir: 'src/sw',
      filename: 'sw.ts',
      injectManifest: {
        // Every page, asset, the question bank and the search index: the whole site works offline.
        // …and /trace/'s sample trace (a .json.gz) with its licence, so "Try a sample trace" works offline.
        globPatterns: [
          '**/*.{html,js,css,json,svg,png,ico,woff2,pagefind,pf_meta,pf_index,pf_fragment}',
          'traces/*.{gz,txt}',
        ],
        // Pagefind's own UI bundles are unused (src/pages/search.astro talks to its API directly).
        globIgnores: [
          '**/_worker.js/**',
          'sw.js',
          'pagefind/pagefind-*ui*',
          'pagefind/pagefind-highlight.js',
          'pagefind/wasm.unknown.pagefind',
        ],
        // The question bank grows with the deck (about 11 MB at 1,000 cards); it must stay precached.
        maximumFileSizeToCacheInBytes: 16 * 1024 * 1024,
        manifestTransforms: [precacheTransform(outDir)],
        rollupFormat: 'iife',
        minify: true,
      },
    }),
  ],
});
