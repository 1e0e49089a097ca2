/** The same build, under the same lock, as `npm run kiosk:web` makes (scripts/build-renderer.ts). */
export { ensureRendererBuilt } from '../../../scripts/build-renderer.ts';
