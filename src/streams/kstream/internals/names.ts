/** Kafka Streams' generated names: `<PREFIX><10-digit index>`, one counter per builder. */
export class NameGenerator {
  private index = 0;

  processor(prefix: string): string {
    return prefix + String(this.index++).padStart(10, '0');
  }

  store(prefix: string): string {
    return `${prefix}STATE-STORE-${String(this.index++).padStart(10, '0')}`;
  }
}
