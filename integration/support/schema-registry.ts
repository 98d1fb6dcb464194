import { SCHEMA_REGISTRY_ERROR_ENV } from './global-setup';

/** The run's registry (global-setup), or the reason there is none. */
export function registryUrl(): string {
  const error = process.env[SCHEMA_REGISTRY_ERROR_ENV];
  if (error !== undefined) throw new Error(`no Schema Registry for this run: ${error}`);
  return process.env.SCHEMA_REGISTRY_URL!;
}
