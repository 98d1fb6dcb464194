import { ConfigException } from '../../errors';
import { serdeByName } from './serde-by-name';

describe('serdeByName', () => {
  it.each(['string', 'json', 'bytes', 'void', 'integer', 'long', 'double', 'float'])('resolves the short name %s', (name) => {
    expect(serdeByName(name).name).toBe(name);
  });

  it('is case-insensitive for short names', () => {
    expect(serdeByName('Long').name).toBe('long');
    expect(serdeByName(' STRING ').name).toBe('string');
  });

  it.each([
    ['StringSerde', 'string'],
    ['IntegerSerde', 'integer'],
    ['LongSerde', 'long'],
    ['DoubleSerde', 'double'],
    ['FloatSerde', 'float'],
    ['ByteArraySerde', 'bytes'],
    ['BytesSerde', 'bytes'],
    ['VoidSerde', 'void'],
  ])('resolves Kafka class Serdes$%s', (className, name) => {
    expect(serdeByName(`org.apache.kafka.common.serialization.Serdes$${className}`).name).toBe(name);
  });

  it('rejects unknown names with a ConfigException', () => {
    expect(() => serdeByName('avro')).toThrow(ConfigException);
    expect(() => serdeByName('org.apache.kafka.common.serialization.Serdes$UUIDSerde')).toThrow(/unknown serde/);
    expect(() => serdeByName('')).toThrow(ConfigException);
  });
});
