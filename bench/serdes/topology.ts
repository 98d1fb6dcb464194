/**
 * The topology of the serde benchmark, the same for both value formats: orders (order id → Order) regrouped by
 * customer (a repartition topic) and summed per customer (a store and its changelog) to an output topic, so that
 * every record's value is read and written several times: source, repartition out and in, store, changelog, sink.
 */
import type { Schema } from 'avsc';
import { SchemaRegistrySerdes, Serdes, StreamsBuilder } from '../../src';
import type { Serde, Topology } from '../../src';

export type ValueFormat = 'json' | 'avro';
export const VALUE_FORMATS: readonly ValueFormat[] = ['json', 'avro'];

export interface Order {
  customer: string;
  item: string;
  amount: number;
}

export interface CustomerTotals {
  orders: number;
  amount: number;
}

export const ORDER_SCHEMA: Schema = {
  type: 'record',
  name: 'Order',
  namespace: 'bench.serdes',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'item', type: 'string' },
    { name: 'amount', type: 'double' },
  ],
};

export const TOTALS_SCHEMA: Schema = {
  type: 'record',
  name: 'CustomerTotals',
  namespace: 'bench.serdes',
  fields: [
    { name: 'orders', type: 'long' },
    { name: 'amount', type: 'double' },
  ],
};

export const TOTALS_STORE = 'customer-totals';

export function orderSerde(format: ValueFormat): Serde<Order> {
  return format === 'avro' ? SchemaRegistrySerdes.avro<Order>({ schema: ORDER_SCHEMA }) : Serdes.Json<Order>();
}

export function totalsSerde(format: ValueFormat): Serde<CustomerTotals> {
  return format === 'avro' ? SchemaRegistrySerdes.avro<CustomerTotals>({ schema: TOTALS_SCHEMA }) : Serdes.Json<CustomerTotals>();
}

/** The order `i` of the input: CUSTOMERS customers, ITEMS items, amounts with cents. */
const CUSTOMERS = 1_000;
const ITEMS = 50;

export function orderOf(i: number): Order {
  return { customer: `customer-${i % CUSTOMERS}`, item: `item-${(i * 7) % ITEMS}`, amount: (i % 1000) / 10 };
}

/** What the output's last record of each customer holds after orders 0..count-1. */
export function expectedTotals(count: number): Map<string, CustomerTotals> {
  const totals = new Map<string, CustomerTotals>();
  for (let i = 0; i < count; i++) {
    const order = orderOf(i);
    const t = totals.get(order.customer) ?? { orders: 0, amount: 0 };
    totals.set(order.customer, { orders: t.orders + 1, amount: t.amount + order.amount });
  }
  return totals;
}

export function orderTotalsTopology(input: string, output: string, format: ValueFormat): Topology {
  const builder = new StreamsBuilder();
  const totals = { keySerde: Serdes.String(), valueSerde: totalsSerde(format) };
  builder
    .stream<string, Order>(input, { keySerde: Serdes.String(), valueSerde: orderSerde(format) })
    .groupBy((_orderId, order) => order.customer, { keySerde: Serdes.String(), valueSerde: orderSerde(format), name: 'orders-by-customer' })
    .aggregate<CustomerTotals>(() => ({ orders: 0, amount: 0 }), (_customer, order, t) => ({ orders: t.orders + 1, amount: t.amount + order.amount }), {
      storeName: TOTALS_STORE,
      ...totals,
    })
    .toStream()
    .to(output, totals);
  return builder.build();
}
