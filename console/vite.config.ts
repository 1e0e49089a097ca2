import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/**
 * Each script, style and JSON asset is written beside its brotli (`.br`) and gzip (`.gz`) copies,
 * made once at build at the highest levels; the server (express-static-gzip) sends the copy the
 * browser accepts, so a slow link carries a third of the bytes and no request pays to compress.
 */
function precompress(): Plugin {
  return {
    name: 'tsaro-precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(import.meta.dirname, 'dist', 'assets');
      for (const name of readdirSync(assets).filter((file) => /\.(js|css|json|svg)$/.test(file))) {
        const body = readFileSync(join(assets, name));
        writeFileSync(join(assets, `${name}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assets, `${name}.gz`), gzipSync(body, { level: 9 }));
      }
    },
  };
}

// Run from the repository root as `vite build console`: the output is console/dist, which the API
// server serves at /console/ (same origin as the API, so the session cookie and CSRF token just work).
// The Content-Security-Policy forbids inline script: no module-preload polyfill, which Vite inlines.
export default defineConfig({
  plugins: [react(), precompress()],
  base: '/console/',
  // The map's chunk (Leaflet and the shipped Natural Earth borders, ~290 KB gzipped) loads only with a map screen.
  build: { outDir: 'dist', emptyOutDir: true, modulePreload: { polyfill: false }, chunkSizeWarningLimit: 1000 },
});
