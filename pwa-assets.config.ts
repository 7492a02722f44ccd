import { defineConfig, minimal2023Preset } from '@vite-pwa/assets-generator/config';

/** Every icon (favicon, 192/512, maskable, apple-touch-icon 180×180) is generated from public/icon.svg. */
export default defineConfig({
  headLinkOptions: { preset: '2023' },
  preset: {
    ...minimal2023Preset,
    maskable: { ...minimal2023Preset.maskable, padding: 0.3, resizeOptions: { background: '#0b6b4f' } },
    apple: { ...minimal2023Preset.apple, padding: 0.3, resizeOptions: { background: '#0b6b4f' } },
  },
  images: ['public/icon.svg'],
});
