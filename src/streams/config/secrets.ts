/**
 * The one place that decides which configuration values are secrets, shown as `[hidden]` wherever a configuration
 * is shown (the config resource, the instance description, logs, error bodies), as Kafka shows its `Password` type.
 */

import type { ConfigValue } from './config-keys';
import { isSecretConfigKey } from './config-lookup';

const HIDDEN_VALUE = '[hidden]';

/**
 * Secret by name, for what the table does not type: passwords and passphrases, private keys, JAAS configurations
 * (which embed credentials), secrets, tokens, credentials and API keys. A suffix rule, so any prefix is covered.
 */
const SECRET_NAME =
  /(^|[._-])(password|passphrase|secret|token|credentials?|api[._-]?key|private[._-]?key)$|(^|\.)(sasl\.jaas\.config|ssl\.keystore\.key|basic\.auth\.user\.info)$/i;

/** Kafka's PASSWORD keys under any prefix (the configuration table), and any key whose name says it holds a secret. */
export function isSecretKey(key: string): boolean {
  return isSecretConfigKey(key) || SECRET_NAME.test(key);
}

/** A copy of a configuration with every secret value replaced by `[hidden]`, keys in their order. */
export function withSecretsHidden(values: Readonly<Record<string, ConfigValue>>): Record<string, ConfigValue> {
  const result: Record<string, ConfigValue> = {};
  for (const [key, value] of Object.entries(values)) result[key] = isSecretKey(key) ? HIDDEN_VALUE : value;
  return result;
}
