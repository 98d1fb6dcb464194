import { Serdes, StreamsBuilder } from '../src';
import type { FixedKeyProcessorContext, FixedKeyProcessorSupplier, Topology } from '../src';

/** The topics of the order-enrichment example. */
export interface OrderTopics {
  /** Input: order id → Order (JSON). */
  orders: string;
  /** Input, read whole by every node into a GlobalKTable: customer id → Customer (JSON). */
  customers: string;
  /** Each order with its customer: order id → EnrichedOrder (JSON). */
  enrichedOrders: string;
  /**
   * Input, a table: product id (an order's `item`) → Product (JSON). Without it (and `pricedOrders`), the topology
   * leaves the pricing out.
   */
  products?: string;
  /** The latest version of each order with the current price of its item: order id → PricedOrder (JSON). */
  pricedOrders?: string;
  /**
   * Input: customer id → Payment (JSON). Without it (and `balances`), the topology leaves the balances out. Payments
   * are keyed by customer, orders by order id: the orders are repartitioned by customer to meet them.
   */
  payments?: string;
  /** What each customer has ordered and paid: customer id → Balance (JSON), on every change. */
  balances?: string;
}

export const ORDER_TOPICS: Required<OrderTopics> = {
  orders: 'orders',
  customers: 'customers',
  enrichedOrders: 'enriched-orders',
  products: 'products',
  pricedOrders: 'priced-orders',
  payments: 'payments',
  balances: 'customer-balances',
};

/** The store of the customers' balances, by customer id. */
export const BALANCES_STORE = 'customer-balances';

/** The global store that holds the customers table: queried on any node, always answered by that node. */
export const CUSTOMERS_STORE = 'customers';

/** The store of the priced orders: each order with the price of its item, by order id. */
export const PRICED_ORDERS_STORE = 'priced-orders';

/** The event type that enriched orders of at least LARGE_ORDER_AMOUNT are published to (`.../subscribe/large-orders`). */
export const LARGE_ORDERS_EVENT = 'large-orders';
export const LARGE_ORDER_AMOUNT = 1000;

export interface Order {
  customer: string;
  item: string;
  amount: number;
}

export interface Customer {
  name: string;
  tier: string;
}

export interface Product {
  price: number;
}

export interface PricedOrder extends Order {
  /** Null while the products table does not know the order's item. */
  price: number | null;
  total: number | null;
}

/** A payment of a customer, in currency units; one of zero or less is refused (dropped). */
export interface Payment {
  amount: number;
}

/** What a customer has ordered (the sum of their orders' amounts, at most 2 decimals) and paid, and what they owe. */
export interface Balance {
  ordered: number;
  paid: number;
  due: number;
}

const cents = (n: number): number => Math.round(n * 100) / 100;

/**
 * A fixed-key processor (`processValues`): it keeps the key, so nothing is repartitioned after it. It drops a payment
 * of zero or less and rounds the others to cents.
 */
export const validPayments: FixedKeyProcessorSupplier<string, Payment, Payment> = () => {
  let context: FixedKeyProcessorContext<string, Payment>;
  return {
    init(c) {
      context = c;
    },
    process(record) {
      if (!(record.value.amount > 0)) return;
      context.forward(record.withValue({ amount: cents(record.value.amount) }));
    },
  };
};

export interface EnrichedOrder extends Order {
  /** Null for a customer the table does not know (yet). */
  name: string | null;
  tier: string | null;
}

/**
 * Orders enriched with their customer from a GlobalKTable: every node holds all customers, so the orders are joined
 * on the customer id in their value, with no repartition and no co-partitioning (the two topics may have any number
 * of partitions each). Large orders are also published to the `large-orders` event type, for clients of the API
 * to follow as they happen. The orders are also read as a table (the latest version of each order) and priced with the
 * product their item names: a foreign-key table join, which needs no co-partitioning either, and re-prices the orders
 * of a product when its price changes. Last, each customer's balance folds two streams into one aggregate (a cogroup):
 * the orders, repartitioned by customer, add to what is ordered and due; the payments, checked by a fixed-key
 * processor (`processValues`), add to what is paid and take from what is due.
 */
export function orderEnrichmentTopology(topics: OrderTopics = ORDER_TOPICS): Topology {
  const builder = new StreamsBuilder();
  const customers = builder.globalTable<string, Customer>(
    topics.customers,
    { keySerde: Serdes.String(), valueSerde: Serdes.Json<Customer>() },
    { storeName: CUSTOMERS_STORE },
  );
  const orders = builder.stream<string, Order>(topics.orders, { keySerde: Serdes.String(), valueSerde: Serdes.Json<Order>() });
  const enriched = orders.leftJoin(
    customers,
    (_orderId, order) => order.customer,
    (order, customer): EnrichedOrder => ({ ...order, name: customer?.name ?? null, tier: customer?.tier ?? null }),
  );
  enriched.to(topics.enrichedOrders, { keySerde: Serdes.String(), valueSerde: Serdes.Json<EnrichedOrder>() });
  enriched.filter((_orderId, order) => order.amount >= LARGE_ORDER_AMOUNT).publishEvents(LARGE_ORDERS_EVENT);
  if (topics.products !== undefined && topics.pricedOrders !== undefined) {
    const products = builder.table<string, Product>(topics.products, { keySerde: Serdes.String(), valueSerde: Serdes.Json<Product>() });
    const priced = { keySerde: Serdes.String(), valueSerde: Serdes.Json<PricedOrder>() };
    orders
      .toTable()
      .leftJoin(
        products,
        (order) => order.item,
        (order, product): PricedOrder => ({ ...order, price: product?.price ?? null, total: product ? product.price * order.amount : null }),
        { materialized: { storeName: PRICED_ORDERS_STORE, ...priced } },
      )
      .toStream()
      .to(topics.pricedOrders, priced);
  }
  if (topics.payments !== undefined && topics.balances !== undefined) {
    const balance = { keySerde: Serdes.String(), valueSerde: Serdes.Json<Balance>() };
    const ordersByCustomer = orders.groupBy((_orderId, order) => order.customer, {
      keySerde: Serdes.String(),
      valueSerde: Serdes.Json<Order>(),
      name: 'orders-by-customer',
    });
    const payments = builder
      .stream<string, Payment>(topics.payments, { keySerde: Serdes.String(), valueSerde: Serdes.Json<Payment>() })
      .processValues(validPayments)
      .groupByKey();
    ordersByCustomer
      .cogroup((_customer, order, b: Balance) => ({ ...b, ordered: cents(b.ordered + order.amount), due: cents(b.due + order.amount) }))
      .cogroup(payments, (_customer, payment, b) => ({ ...b, paid: cents(b.paid + payment.amount), due: cents(b.due - payment.amount) }))
      .aggregate(() => ({ ordered: 0, paid: 0, due: 0 }), { storeName: BALANCES_STORE, ...balance })
      .toStream()
      .to(topics.balances, balance);
  }
  return builder.build();
}
