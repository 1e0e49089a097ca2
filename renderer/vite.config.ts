import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Run from the repository root as `vite build renderer`: the root is this folder and the output
// is renderer/dist. `base: './'` keeps asset URLs relative, so the same build loads from the
// browser host over HTTP and from a file:// URL in the Electron shell.
export default defineConfig({
  plugins: [react()],
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1024 },
});
