#!/usr/bin/env node
// The installed entry point: the compiled CLI (npm ci builds dist/ through the prepare script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
