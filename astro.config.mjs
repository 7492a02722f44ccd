// @ts-check
import { defineConfig } from 'astro/config';
import react from '@astrojs/react';

export default defineConfig({
  site: 'https://saturate.local',
  trailingSlash: 'ignore',
  build: { format: 'directory' },
  integrations: [react()],
  server: { host: '127.0.0.1' },
});
