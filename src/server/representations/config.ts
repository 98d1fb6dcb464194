import { withSecretsHidden } from '../../streams/config/secrets';
import type { ConfigValue } from '../../streams/runtime/streams-config';

/** The configuration resource: a flat object, keys sorted, secrets shown as `[hidden]`. */
export function visibleConfig(values: Readonly<Record<string, ConfigValue>>): Record<string, ConfigValue> {
  const sorted: Record<string, ConfigValue> = {};
  for (const key of Object.keys(values).sort()) sorted[key] = values[key]!;
  return withSecretsHidden(sorted);
}
