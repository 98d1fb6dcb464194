import { SortedChunks } from './sorted-chunks';

/** A deterministic pseudo-random sequence (a linear congruential generator), so that a failure repeats. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
}

describe('SortedChunks', () => {
  it('answers ranges as a sorted map does, through enough sets and deletes to split and join chunks', () => {
    const chunks = new SortedChunks<number>();
    const model = new Map<string, number>();
    const next = sequence(7);
    const key = (): string => `k${String(next() % 3_000).padStart(4, '0')}`;
    const expectRange = (from: string | undefined, to: string | undefined): void => {
      const keys = [...model.keys()].sort().filter((k) => (from === undefined || k >= from) && (to === undefined || k <= to));
      expect(chunks.range(from, to)).toEqual(keys.map((k) => model.get(k)));
    };
    for (let round = 0; round < 6; round++) {
      // Rounds of mostly sets, then of mostly deletes, so that the key count rises and falls through the chunk sizes.
      const deleting = round % 2 === 1;
      for (let i = 0; i < 2_500; i++) {
        const k = key();
        if (deleting === next() % 4 > 0) {
          chunks.delete(k);
          model.delete(k);
        } else {
          chunks.set(k, i);
          model.set(k, i);
        }
      }
      expectRange(undefined, undefined);
      expectRange('k0500', 'k1500');
      expectRange('k2999', undefined);
      expectRange(undefined, 'k0000');
      expectRange('k1000', 'k0999');
    }
  });
});
