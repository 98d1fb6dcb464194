import { TopologyException } from '../../errors';
import { StreamsBuilder } from '../kstream/streams-builder';
import { Serdes } from '../serdes/serdes';
import { planInternalTopics } from './internal-topic-manager';
import { TopologyMetadata } from './topology-metadata';

const options = { replicationFactor: 3, topicConfigs: { 'min.insync.replicas': '2' } };

/** Lines re-keyed (a repartition), counted (a changelog), joined with a table (co-partitioned with its topic). */
function metadata(): TopologyMetadata {
  const builder = new StreamsBuilder();
  const users = builder.table<string, string>('users', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  builder
    .stream<string, string>('lines', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .selectKey((_k, v) => v)
    .join(users, (line, user) => `${line}@${user}`)
    .groupByKey()
    .count();
  return new TopologyMetadata(builder.build(), 'app');
}

describe('planInternalTopics', () => {
  it('sizes a repartition topic that feeds a join by its co-partitioned table, and each changelog by its tasks', () => {
    const { specs, partitionCounts } = planInternalTopics(metadata(), new Map([['lines', 2], ['users', 6]]), options);
    const repartition = specs.filter((s) => s.name.endsWith('-repartition'));
    expect(repartition.length).toBeGreaterThan(0);
    for (const spec of repartition) {
      expect(spec.partitions).toBe(6);
      expect(spec.configs).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1', 'min.insync.replicas': '2' });
      expect(spec.replicationFactor).toBe(3);
    }
    const changelogs = specs.filter((s) => s.name.endsWith('-changelog'));
    expect(changelogs.length).toBeGreaterThan(0);
    for (const spec of changelogs) {
      expect(spec.partitions).toBe(6);
      expect(spec.configs).toMatchObject({ 'cleanup.policy': 'compact', 'min.insync.replicas': '2' });
    }
    for (const spec of specs) expect(partitionCounts.get(spec.name)).toBe(spec.partitions);
    expect(partitionCounts.get('lines')).toBe(2);
  });

  it('refuses co-partitioned source topics of different partition counts', () => {
    const builder = new StreamsBuilder();
    const table = builder.table<string, string>('users');
    builder.stream<string, string>('clicks').join(table, (a, b) => `${a}${b}`);
    const mismatched = new TopologyMetadata(builder.build(), 'app');
    expect(() => planInternalTopics(mismatched, new Map([['clicks', 3], ['users', 4]]), options)).toThrow(TopologyException);
    expect(() => planInternalTopics(mismatched, new Map([['clicks', 4], ['users', 4]]), options)).not.toThrow();
  });

  it("sizes a foreign-key join's subscription topic by the right table and its response topic by the left table", () => {
    const builder = new StreamsBuilder();
    const products = builder.table<string, string>('products');
    builder.table<string, string>('orders').join(products, (order) => order.split('/')[0], (order, product) => `${order}:${product}`);
    const { specs } = planInternalTopics(new TopologyMetadata(builder.build(), 'app'), new Map([['orders', 4], ['products', 2]]), options);
    const partitions = Object.fromEntries(specs.map((s) => [s.name, s.partitions]));
    expect(partitions).toMatchObject({
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic': 2,
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic': 4,
      // The subscription store lives with the right table's tasks.
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010-changelog': 2,
    });
    expect(specs.find((s) => s.name.endsWith('-topic'))!.configs).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1' });
  });
});
