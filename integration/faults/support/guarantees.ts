/** The processing guarantees every fault test runs under: exactly once (nothing lost or doubled) and at least once (nothing lost). */
export const FAULT_GUARANTEES: readonly ('exactly_once_v2' | 'at_least_once')[] = ['exactly_once_v2', 'at_least_once'];
