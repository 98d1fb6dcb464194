import { SluiceError } from '../errors';
import { jsonSerde } from '../streams/serdes/json';
import { longSerde } from '../streams/serdes/long';
import type { Serde } from '../streams/serdes/serde';
import { stringSerde } from '../streams/serdes/string';
import type { StoreType } from '../streams/state/store';
import { bindQuery } from './bind';
import { parseQueryRequest } from './parse';

const schema = (type: StoreType, keySerde: Serde<unknown>) => ({ type, keySerde });
const request = (body: unknown) => parseQueryRequest(body);

function bindError(body: unknown, type: StoreType, keySerde: Serde<unknown>): SluiceError {
  try {
    bindQuery(request(body), schema(type, keySerde), 'store');
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as SluiceError).exception).toBe('InvalidQuery');
    expect((error as SluiceError).kind).toBe('invalid');
    return error as SluiceError;
  }
  throw new Error('expected an InvalidQuery');
}

describe('bindQuery', () => {
  it('decodes keys with the store key serde and serializes the key of a keyed clause', () => {
    const bound = bindQuery(request({ type: 'key_value', query: { get: { key: 42 } } }), schema('key_value', longSerde as Serde<unknown>), 's');
    expect(bound.keyed).toBe(true);
    expect(bound.keys.key).toBe(42);
    expect(bound.keyBytes).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 42]));
  });

  it('takes integer keys as numeric strings too (clients that cannot carry 64-bit numbers)', () => {
    const bound = bindQuery(request({ type: 'key_value', query: { get: { key: '42' } } }), schema('key_value', longSerde as Serde<unknown>), 's');
    expect(bound.keys.key).toBe(42);
  });

  it('decodes both bounds of a range, which is not keyed', () => {
    const bound = bindQuery(
      request({ type: 'key_value', query: { range: { key_from: 'a', key_to: 'c' } } }),
      schema('key_value', stringSerde as Serde<unknown>),
      's',
    );
    expect(bound.keyed).toBe(false);
    expect(bound.keys).toEqual({ key_from: 'a', key_to: 'c' });
    expect(bound.keyBytes).toBeUndefined();
  });

  it('takes any JSON value as the key of a JSON-keyed store', () => {
    const bound = bindQuery(request({ type: 'key_value', query: { get: { key: { id: 7 } } } }), schema('key_value', jsonSerde), 's');
    expect(bound.keyBytes?.toString()).toBe('{"id":7}');
  });

  it('scans a JSON string prefix as the JSON text without its closing quote', () => {
    const bound = bindQuery(request({ type: 'key_value', query: { prefix_scan: { prefix: 'ab' } } }), schema('key_value', jsonSerde), 's');
    expect(bound.prefixBytes?.toString()).toBe('"ab');
    const plain = bindQuery(
      request({ type: 'key_value', query: { prefix_scan: { prefix: 'ab' } } }),
      schema('key_value', stringSerde as Serde<unknown>),
      's',
    );
    expect(plain.prefixBytes?.toString()).toBe('ab');
  });

  it('lets a plain type query the timestamped store of its kind', () => {
    expect(bindQuery(request({ type: 'key_value', query: { all: {} } }), schema('timestamped_key_value', jsonSerde), 's').storeType).toBe(
      'timestamped_key_value',
    );
    expect(bindQuery(request({ type: 'window', query: { all: {} } }), schema('timestamped_window', jsonSerde), 's').storeType).toBe(
      'timestamped_window',
    );
  });

  it.each<[string, unknown, StoreType, Serde<unknown>, string]>([
    ['a string key for a long store', { type: 'key_value', query: { get: { key: 'abc' } } }, 'key_value', longSerde as Serde<unknown>, "parameter 'key' is not a key of this store"],
    ['a number key for a string store', { type: 'key_value', query: { get: { key: 1 } } }, 'key_value', stringSerde as Serde<unknown>, 'expected a JSON string'],
    ['a wrong key_to', { type: 'key_value', query: { range: { key_from: 'a', key_to: 2 } } }, 'key_value', stringSerde as Serde<unknown>, "parameter 'key_to'"],
    ['a fractional long key', { type: 'key_value', query: { get: { key: 1.5 } } }, 'key_value', longSerde as Serde<unknown>, 'expected an integer'],
    ['a window query on a key-value store', { type: 'window', query: { all: {} } }, 'key_value', jsonSerde, "store 'store' is a key_value store; a window query does not apply to it"],
    ['a timestamped query on a plain store', { type: 'timestamped_key_value', query: { all: {} } }, 'key_value', jsonSerde, 'is a key_value store'],
    ['a key-value query on a session store', { type: 'key_value', query: { all: {} } }, 'session', jsonSerde, 'is a session store'],
  ])('refuses %s', (_name, body, type, serde, message) => {
    expect(bindError(body, type, serde).message).toContain(message);
  });
});
