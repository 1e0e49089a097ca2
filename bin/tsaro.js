#!/usr/bin/env node
// `npx tsaro`: the operator tool. The TypeScript sources run through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/main.ts');
