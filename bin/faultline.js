#!/usr/bin/env node
// The installed entry point: the compiled CLI as one bundle (npm ci builds dist/ and
// dist/cli-bundle/ through the prepare script; scripts/bundle/cli.ts says why a bundle).
import { main } from '../dist/cli-bundle/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
