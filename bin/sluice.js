#!/usr/bin/env node
// The `sluice` command runs the compiled CLI (`npm run build` writes dist/).
'use strict';
const path = require('node:path');

const cli = path.join(__dirname, '..', 'dist', 'src', 'host', 'cli.js');
let main;
try {
  ({ main } = require(cli));
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(cli)) {
    process.stderr.write('sluice: not built yet; run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
}
main(process.argv).catch((error) => {
  process.stderr.write(`sluice: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
