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

// `BASE_PATH=/saturate/ npm run build` puts the whole site (links, assets, manifest, service worker,
// search index, question bank) under that path, for hosts such as GitHub Pages; `SITE_URL` sets the
// canonical URLs and the sitemap. `OUT_DIR` builds somewhere other than dist/ (the tests' dist-base/).
const base = normaliseBasePath(process.env['BASE_PATH']);
const site = process.env['SITE_URL'] || 'https://saturate.local';

export default defineConfig({
  site,
  base,
  ...(process.env['OUT_DIR'] ? { outDir: process.env['OUT_DIR'] } : {}),
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
      workbox: {
        // Every page, asset, the question bank and the search index: the whole site works offline.
        // …and /trace/'s sample trace (a .json.gz) with its licence, so "Try a sample trace" works offline.
        globPatterns: [
          '**/*.{html,js,css,json,svg,png,ico,woff2,pagefind,pf_meta,pf_index,pf_fragment}',
          'traces/*.{gz,txt}',
        ],
        // Pagefind's own UI bundles are unused (src/pages/search.astro talks to its API directly).
        globIgnores: [
          '**/_worker.js/**',
          'pagefind/pagefind-*ui*',
          'pagefind/pagefind-highlight.js',
          'pagefind/wasm.unknown.pagefind',
        ],
        navigateFallback: null,
        // Query strings (?seed=, ?q=, Pagefind's ?ts=) never change what a precached file holds.
        ignoreURLParametersMatching: [/.*/],
        cleanupOutdatedCaches: true,
        // The first worker takes control at once; later ones wait for the learner's "reload".
        clientsClaim: true,
        skipWaiting: false,
        // The question bank grows with the deck (about 11 MB at 1,000 cards); it must stay precached.
        maximumFileSizeToCacheInBytes: 16 * 1024 * 1024,
        runtimeCaching: [
          {
            // A page that is not precached (a new URL while offline) gets the offline page.
            urlPattern: ({ request, url }) => request.mode === 'navigate' && !url.pathname.startsWith('/api/'),
            handler: 'NetworkOnly',
            options: { precacheFallback: { fallbackURL: `${base}offline/index.html` } },
          },
        ],
      },
      experimental: { directoryAndTrailingSlashHandler: true },
    }),
  ],
});
