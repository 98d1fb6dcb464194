#!/usr/bin/env node
/**
 * `node merge-config.js OUT IN...`: deep-merges the YAML (or JSON) files IN, later ones winning, into OUT.
 *
 * Sluice reads one configuration file, while Kubernetes keeps settings in a ConfigMap and credentials in a Secret:
 * the pod's init container merges the two into the file `sluice start --config` reads. Objects merge key by key;
 * anything else (lists, scalars) is replaced. An IN that does not exist is left out, so that an optional Secret may
 * be absent. OUT is written readable by its owner only, as it may hold credentials.
 */
'use strict';
const fs = require('node:fs');
const { parse, stringify } = require('yaml');

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

function merge(target, source) {
  const merged = { ...target };
  for (const [key, value] of Object.entries(source)) {
    merged[key] = isObject(merged[key]) && isObject(value) ? merge(merged[key], value) : value;
  }
  return merged;
}

function read(file) {
  const parsed = parse(fs.readFileSync(file, 'utf8'));
  if (parsed === null || parsed === undefined) return {};
  if (!isObject(parsed)) throw new Error(`${file} must hold an object at the top`);
  return parsed;
}

function main([out, ...inputs]) {
  if (out === undefined || inputs.length === 0) throw new Error('usage: merge-config.js OUT IN...');
  const present = inputs.filter((file) => fs.existsSync(file));
  if (present.length === 0) throw new Error(`none of ${inputs.join(', ')} exists`);
  const merged = present.map(read).reduce(merge, {});
  fs.writeFileSync(out, stringify(merged), { mode: 0o600 });
  process.stdout.write(`merge-config: ${present.join(' + ')} -> ${out}\n`);
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`merge-config: ${error.message}\n`);
  process.exit(1);
}
