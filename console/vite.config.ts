import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Run from the repository root as `vite build console`: the output is console/dist, which the API
// server serves at /console/ (same origin as the API, so the session cookie and CSRF token just work).
// The Content-Security-Policy forbids inline script: no module-preload polyfill, which Vite inlines.
export default defineConfig({
  plugins: [react()],
  base: '/console/',
  // The map's chunk (Leaflet and the shipped Natural Earth borders, ~290 KB gzipped) loads only with a map screen.
  build: { outDir: 'dist', emptyOutDir: true, modulePreload: { polyfill: false }, chunkSizeWarningLimit: 1000 },
});
