import { SerializationException } from '../../errors';
import { Serdes } from './serdes';
import { sessionWindowedSerde, timeWindowedSerde } from './windowed';

describe('windowed serdes', () => {
  it('time-windowed key is key bytes + 8-byte BE start, end from the window size', () => {
    const serde = timeWindowedSerde(Serdes.String(), 60000);
    const bytes = serde.serialize({ key: 'ab', window: { start: 120000, end: 180000 } });
    expect(bytes.toString('hex')).toBe('6162' + '000000000001d4c0');
    expect(serde.deserialize(bytes)).toEqual({ key: 'ab', window: { start: 120000, end: 180000 } });
  });

  it('session-windowed key is key bytes + 8-byte BE end + 8-byte BE start', () => {
    const serde = sessionWindowedSerde(Serdes.Long());
    const windowed = { key: 7, window: { start: 1000, end: 5000 } };
    const bytes = serde.serialize(windowed);
    expect(bytes.toString('hex')).toBe('0000000000000007' + '0000000000001388' + '00000000000003e8');
    expect(serde.deserialize(bytes)).toEqual(windowed);
  });

  it('reads and writes the query API JSON shape', () => {
    const serde = sessionWindowedSerde(Serdes.String());
    const windowed = { key: 'k', window: { start: 1, end: 2 } };
    expect(serde.toJson(windowed)).toEqual({ key: 'k', window_start: 1, window_end: 2 });
    expect(serde.fromJson({ key: 'k', window_start: 1, window_end: 2 })).toEqual(windowed);
    expect(() => serde.fromJson({ key: 'k', window_start: 1 })).toThrow(SerializationException);
    expect(() => serde.fromJson('k')).toThrow(SerializationException);
    expect(timeWindowedSerde(Serdes.String(), 10).fromJson({ key: 'k', window_start: 5 })).toEqual({
      key: 'k',
      window: { start: 5, end: 15 },
    });
  });

  it('rejects bytes too short to hold a window', () => {
    expect(() => timeWindowedSerde(Serdes.String(), 10).deserialize(Buffer.alloc(7))).toThrow(SerializationException);
    expect(() => sessionWindowedSerde(Serdes.String()).deserialize(Buffer.alloc(15))).toThrow(SerializationException);
  });
});
