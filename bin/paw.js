#!/usr/bin/env node
// Runs paw's TypeScript sources directly through tsx, so `npx paw` is always exactly what is
// checked out (no stale build to forget). The container image runs the compiled `dist/` instead.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
