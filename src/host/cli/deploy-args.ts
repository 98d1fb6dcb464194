/**
 * `sluice deploy`'s request: from a file (`-f`, YAML or JSON, the deploy body of the API) and/or flags, the flags
 * overriding the file. Checked here so that a mistake is named before anything is sent; what only the node knows (the
 * topology, which configuration keys a deployment may set) it answers itself.
 */

import * as fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { InvalidClientRequest } from '../../errors';
import type { ConfigValue, DeployRequest } from '../../client';

export interface DeployFlags {
  file?: string;
  name?: string;
  topologyVersion?: string;
  description?: string;
  set: string[];
}

const FIELDS = ['type', 'version', 'name', 'description', 'config'] as const;

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidClientRequest(`${what} must be a non-empty string`);
  return value;
}

/** A `--set` value as the configuration types it: an integer, true or false, else the text. */
function configValue(raw: string): ConfigValue {
  if (/^[+-]?\d+$/.test(raw)) return Number(raw);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return raw;
}

/** The deploy body a file holds, every field checked. */
export function parseDeployFile(file: string, content: string): DeployRequest {
  let body: unknown;
  try {
    body = parseYaml(content);
  } catch (error) {
    throw new InvalidClientRequest(`${file} is neither YAML nor JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidClientRequest(`${file} must hold an object with ${FIELDS.join(', ')}`);
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) throw new InvalidClientRequest(`${file}: unknown field ${unknown.join(', ')}; the fields are ${FIELDS.join(', ')}`);
  const request: DeployRequest = { type: text(fields.type, `${file}: type`) };
  if (fields.version !== undefined) request.version = text(fields.version, `${file}: version`);
  if (fields.name !== undefined) request.name = text(fields.name, `${file}: name`);
  if (fields.description !== undefined) {
    if (typeof fields.description !== 'string') throw new InvalidClientRequest(`${file}: description must be a string`);
    request.description = fields.description;
  }
  if (fields.config !== undefined) {
    const config = fields.config;
    if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new InvalidClientRequest(`${file}: config must be an object of keys and values`);
    for (const [key, value] of Object.entries(config)) {
      if (!['string', 'number', 'boolean'].includes(typeof value)) throw new InvalidClientRequest(`${file}: config ${key} must be a string, number or boolean`);
    }
    request.config = config as Record<string, ConfigValue>;
  }
  return request;
}

function readDeployFile(file: string): DeployRequest {
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidClientRequest(`cannot read the deploy file ${file}: ${(error as Error).message}`);
  }
  return parseDeployFile(file, content);
}

/** The deploy body from the file (if any) and the flags; the topology from the argument or the file. */
export function deployRequest(topology: string | undefined, flags: DeployFlags, read: (file: string) => DeployRequest = readDeployFile): DeployRequest {
  const base = flags.file === undefined ? undefined : read(flags.file);
  const type = topology ?? base?.type;
  if (type === undefined) throw new InvalidClientRequest('give the topology (a name or alias, as sluice topologies lists them) or a file with its type (-f)');
  const request: DeployRequest = { ...base, type: text(type, 'the topology') };
  if (flags.name !== undefined) request.name = text(flags.name, '--name');
  if (flags.topologyVersion !== undefined) request.version = text(flags.topologyVersion, '--topology-version');
  if (flags.description !== undefined) request.description = flags.description;
  if (flags.set.length > 0) {
    const set: Record<string, ConfigValue> = {};
    for (const argument of flags.set) {
      const at = argument.indexOf('=');
      if (at <= 0) throw new InvalidClientRequest(`--set '${argument}' must be key=value`);
      const key = argument.slice(0, at);
      if (key in set) throw new InvalidClientRequest(`--set ${key} is given twice`);
      set[key] = configValue(argument.slice(at + 1));
    }
    request.config = { ...base?.config, ...set };
  }
  return request;
}
