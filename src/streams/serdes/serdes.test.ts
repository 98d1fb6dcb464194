import { SerializationException } from '../../errors';
import type { Serde } from './serde';
import { Serdes } from './serdes';

const hex = (bytes: Buffer): string => bytes.toString('hex');

function roundTrip<T>(serde: Serde<T>, value: T): T {
  return serde.deserialize(serde.serialize(value));
}

describe('Java byte layouts', () => {
  it.each([
    [1, '0000000000000001'],
    [-1, 'ffffffffffffffff'],
    [0, '0000000000000000'],
    [256, '0000000000000100'],
    [Number.MAX_SAFE_INTEGER, '001fffffffffffff'],
    [Number.MIN_SAFE_INTEGER, 'ffe0000000000001'],
    [-4294967296, 'ffffffff00000000'],
    [1700000000000, '0000018bcfe56800'],
  ])('Long %p is %s', (value, bytes) => {
    expect(hex(Serdes.Long().serialize(value))).toBe(bytes);
    expect(Serdes.Long().deserialize(Buffer.from(bytes, 'hex'))).toBe(value);
  });

  it.each([
    [-1, 'ffffffff'],
    [1, '00000001'],
    [2147483647, '7fffffff'],
    [-2147483648, '80000000'],
  ])('Integer %p is %s', (value, bytes) => {
    expect(hex(Serdes.Integer().serialize(value))).toBe(bytes);
    expect(Serdes.Integer().deserialize(Buffer.from(bytes, 'hex'))).toBe(value);
  });

  it('Double 1.5 and Float 1.5', () => {
    expect(hex(Serdes.Double().serialize(1.5))).toBe('3ff8000000000000');
    expect(hex(Serdes.Double().serialize(-2))).toBe('c000000000000000');
    expect(hex(Serdes.Float().serialize(1.5))).toBe('3fc00000');
    expect(Serdes.Double().deserialize(Buffer.from('3ff8000000000000', 'hex'))).toBe(1.5);
    expect(Serdes.Float().deserialize(Buffer.from('3fc00000', 'hex'))).toBe(1.5);
  });

  it('String is UTF-8 and Void is empty', () => {
    expect(hex(Serdes.String().serialize('é€'))).toBe('c3a9e282ac');
    expect(Serdes.String().deserialize(Buffer.from('c3a9e282ac', 'hex'))).toBe('é€');
    expect(Serdes.Void().serialize(null).length).toBe(0);
    expect(Serdes.Void().deserialize(Buffer.alloc(0))).toBeNull();
  });

  it('JSON is UTF-8 text of the value', () => {
    expect(Serdes.Json().serialize({ a: [1, 'é'] }).toString('utf8')).toBe('{"a":[1,"é"]}');
    expect(roundTrip(Serdes.Json(), { a: [1, null, { b: true }] })).toEqual({ a: [1, null, { b: true }] });
  });
});

describe('round trips', () => {
  it('keeps values', () => {
    expect(roundTrip(Serdes.String(), '')).toBe('');
    expect(roundTrip(Serdes.String(), 'Zürich 🚀')).toBe('Zürich 🚀');
    expect(roundTrip(Serdes.Bytes(), Buffer.from([0, 255, 7]))).toEqual(Buffer.from([0, 255, 7]));
    expect(roundTrip(Serdes.Long(), -123456789012345)).toBe(-123456789012345);
    expect(roundTrip(Serdes.Double(), Math.PI)).toBe(Math.PI);
    expect(roundTrip(Serdes.Double(), -0)).toBe(-0);
    expect(roundTrip(Serdes.Double(), Number.NaN)).toBeNaN();
    expect(roundTrip(Serdes.Float(), 0.1)).toBeCloseTo(0.1, 6);
    expect(roundTrip(Serdes.Float(), 0.1)).toBe(Math.fround(0.1));
  });

  it('bytes accept a plain Uint8Array', () => {
    const view = new Uint8Array([1, 2, 3, 4]).subarray(1, 3);
    expect(hex(Serdes.Bytes().serialize(view as Buffer))).toBe('0203');
  });
});

describe('deserializeFrom', () => {
  const prefixed = (bytes: Buffer) => Buffer.concat([Buffer.from([9, 9, 9, 9, 9, 9, 9, 9]), bytes]);

  it.each<[string, Serde<unknown>, unknown]>([
    ['string', Serdes.String() as Serde<unknown>, 'Zürich 🚀'],
    ['empty string', Serdes.String() as Serde<unknown>, ''],
    ['json', Serdes.Json(), { a: [1, 'b', null] }],
    ['long', Serdes.Long() as Serde<unknown>, -123456789012345],
  ])('reads %s after a prefix as deserialize reads it alone', (_name, serde, value) => {
    const bytes = serde.serialize(value);
    expect(serde.deserializeFrom!(prefixed(bytes), 8)).toEqual(serde.deserialize(bytes));
  });

  it.each<[string, Serde<unknown>, unknown]>([
    ['string', Serdes.String() as Serde<unknown>, 'Zürich 🚀'],
    ['json', Serdes.Json(), { a: [1, 'b', null] }],
    ['long', Serdes.Long() as Serde<unknown>, 42],
  ])('reads %s between two bounds, as a fetched record lies in the fetched bytes', (_name, serde, value) => {
    const bytes = serde.serialize(value);
    const fetched = Buffer.concat([prefixed(bytes), Buffer.from('next record')]);
    expect(serde.deserializeFrom!(fetched, 8, 8 + bytes.length)).toEqual(serde.deserialize(bytes));
  });

  it('rejects what deserialize rejects, counting only the bytes after the offset', () => {
    expect(() => Serdes.Long().deserializeFrom!(prefixed(Buffer.alloc(4)), 8)).toThrow(/expected 8 bytes, received 4/);
    expect(() => Serdes.Json().deserializeFrom!(prefixed(Buffer.from('{x')), 8)).toThrow(/invalid JSON \(2 bytes\)/);
  });

  it('rejects what deserialize rejects, counting only the bytes between the bounds', () => {
    expect(() => Serdes.Long().deserializeFrom!(prefixed(Buffer.alloc(12)), 8, 12)).toThrow(/expected 8 bytes, received 4/);
    expect(() => Serdes.Json().deserializeFrom!(prefixed(Buffer.from('{"a":1}')), 8, 10)).toThrow(/invalid JSON \(2 bytes\)/);
  });
});

describe('rejections', () => {
  const rejects = (action: () => unknown, message: RegExp): void => {
    expect(action).toThrow(SerializationException);
    expect(action).toThrow(message);
  };

  it('long beyond 2^53 both ways', () => {
    rejects(() => Serdes.Long().serialize(2 ** 53), /MAX_SAFE_INTEGER/);
    rejects(() => Serdes.Long().serialize(1.5), /not an integer/);
    rejects(() => Serdes.Long().deserialize(Buffer.from('7fffffffffffffff', 'hex')), /9223372036854775807 is beyond/);
    rejects(() => Serdes.Long().deserialize(Buffer.from('0020000000000000', 'hex')), /beyond/);
    rejects(() => Serdes.Long().deserialize(Buffer.from('0001', 'hex')), /expected 8 bytes, received 2/);
  });

  it('integer out of range and wrong sizes', () => {
    rejects(() => Serdes.Integer().serialize(2147483648), /not a 32-bit integer/);
    rejects(() => Serdes.Integer().deserialize(Buffer.alloc(8)), /expected 4 bytes/);
    rejects(() => Serdes.Double().deserialize(Buffer.alloc(4)), /expected 8 bytes/);
    rejects(() => Serdes.Float().deserialize(Buffer.alloc(8)), /expected 4 bytes/);
  });

  it('json that is not JSON', () => {
    rejects(() => Serdes.Json().deserialize(Buffer.from('{nope')), /invalid JSON/);
    rejects(() => Serdes.Json().serialize(undefined), /undefined/);
    rejects(() => Serdes.Json().serialize({ n: BigInt(1) }), /cannot serialize/);
  });

  it('void with data', () => {
    rejects(() => Serdes.Void().deserialize(Buffer.from([1])), /expected no data/);
  });
});

describe('fromJson / toJson', () => {
  it('string takes only strings', () => {
    expect(Serdes.String().fromJson('k')).toBe('k');
    expect(() => Serdes.String().fromJson(1)).toThrow(SerializationException);
    expect(() => Serdes.String().fromJson(null)).toThrow(SerializationException);
  });

  it('integer and long take integers and numeric strings in range', () => {
    expect(Serdes.Integer().fromJson(42)).toBe(42);
    expect(Serdes.Integer().fromJson('-7')).toBe(-7);
    expect(Serdes.Long().fromJson('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => Serdes.Long().fromJson('9007199254740993')).toThrow(/in \[/);
    expect(() => Serdes.Integer().fromJson(2147483648)).toThrow(SerializationException);
    expect(() => Serdes.Integer().fromJson('2147483648')).toThrow(SerializationException);
    expect(() => Serdes.Long().fromJson(1.5)).toThrow(SerializationException);
    expect(() => Serdes.Long().fromJson('1.5')).toThrow(SerializationException);
    expect(() => Serdes.Long().fromJson(' 1')).toThrow(SerializationException);
    expect(() => Serdes.Long().fromJson(true)).toThrow(SerializationException);
  });

  it('double and float take numbers only', () => {
    expect(Serdes.Double().fromJson(2.5)).toBe(2.5);
    expect(Serdes.Float().fromJson(-1)).toBe(-1);
    expect(() => Serdes.Double().fromJson('2.5')).toThrow(SerializationException);
    expect(() => Serdes.Float().fromJson(null)).toThrow(SerializationException);
  });

  it('json takes anything, bytes take base64', () => {
    expect(Serdes.Json().fromJson({ a: 1 })).toEqual({ a: 1 });
    expect(Serdes.Bytes().fromJson('AP8H')).toEqual(Buffer.from([0, 255, 7]));
    expect(Serdes.Bytes().toJson(Buffer.from([0, 255, 7]))).toBe('AP8H');
    expect(Serdes.Bytes().fromJson('AQ')).toEqual(Buffer.from([1]));
    expect(() => Serdes.Bytes().fromJson('not base64!')).toThrow(SerializationException);
    expect(() => Serdes.Bytes().fromJson(12)).toThrow(SerializationException);
    expect(Serdes.Void().fromJson(null)).toBeNull();
    expect(() => Serdes.Void().fromJson('x')).toThrow(SerializationException);
  });
});

describe('serde shortcuts', () => {
  it('are not copied by a spread that brings its own serializer and deserializer, so nothing bypasses them', () => {
    const upper = { ...Serdes.String(), serialize: (value: string) => Buffer.from(value.toUpperCase(), 'utf8'), deserialize: (bytes: Buffer) => bytes.toString('utf8').toLowerCase() };
    expect(upper.serializeToUtf8).toBeUndefined();
    expect(upper.deserializeFrom).toBeUndefined();
    expect(Serdes.String().serializeToUtf8!('kafka')).toBe('kafka');
    expect(Serdes.Long().deserializeFrom!(Buffer.from([9, 0, 0, 0, 0, 0, 0, 0, 42]), 1)).toBe(42);
    expect(Serdes.Json().serializeToUtf8!({ a: [1] })).toBe('{"a":[1]}');
  });
});
