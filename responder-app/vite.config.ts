import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Run from the repository root as `vite build responder-app`: the output is responder-app/dist,
// which the API server serves at /responder/ (same origin as the responder API).
export default defineConfig({
  plugins: [react()],
  base: '/responder/',
  build: { outDir: 'dist', emptyOutDir: true },
});
