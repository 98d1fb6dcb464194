/**
 * The Schema Registry of the integration tests: a real one someone runs (Confluent's, Karapace, Apicurio), named by
 * SCHEMA_REGISTRY_URL. None is installable from this machine's package registries (Confluent's and Apicurio's servers
 * are not on Maven Central, Karapace is not on PyPI), so without it the registry's tests are skipped, saying why; the
 * serdes' logic is proven by their unit tests on an in-process registry double.
 */
const url = process.env.SCHEMA_REGISTRY_URL?.trim() || undefined;

/** `describe`, given the registry's URL; `describe.skip` with one line on stderr when there is none. */
export function describeWithRegistry(name: string, body: (registryUrl: () => string) => void): void {
  if (url === undefined) {
    process.stderr.write(
      `Schema Registry tests skipped (${name}): SCHEMA_REGISTRY_URL is not set, and no registry is installable from this machine's package registries; set it to a Confluent, Karapace or Apicurio registry to run them\n`,
    );
    describe.skip(name, () => body(() => ''));
    return;
  }
  describe(name, () => body(() => url));
}
