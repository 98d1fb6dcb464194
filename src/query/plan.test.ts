import type { Serde } from '../streams/serdes/serde';
import { stringSerde } from '../streams/serdes/string';
import type { StateStore } from '../streams/state/store';
import { bindQuery } from './bind';
import { parseQueryRequest } from './parse';
import { planQuery } from './plan';
import { FakeView, type FakeHost } from './testing/fake-view';

const hosts: FakeHost[] = [
  { endpoint: 'node-a:8080', grpcEndpoint: 'node-a:9090', partitions: [0, 3], isLocal: true },
  { endpoint: 'node-b:8080', grpcEndpoint: 'node-b:9090', partitions: [1, 4] },
  { endpoint: 'node-c:8080', grpcEndpoint: 'node-c:9090', partitions: [2, 5] },
];

function viewWith(hostList: FakeHost[]): FakeView {
  return new FakeView('app', new Map([['kv', new Map<number, StateStore>()]]), hostList, 6, stringSerde as Serde<unknown>);
}

function plan(view: FakeView, body: unknown) {
  return planQuery(view.asView(), 'kv', bindQuery(parseQueryRequest(body), { type: 'key_value', keySerde: stringSerde as Serde<unknown> }, 'kv'));
}

/** A key whose partition belongs to the given host. */
function keyOwnedBy(view: FakeView, host: FakeHost): string {
  for (let i = 0; ; i++) if (host.partitions.includes(view.partitionOf(`key-${i}`))) return `key-${i}`;
}

describe('planQuery', () => {
  const view = viewWith(hosts);

  it('sends a keyed clause owned here to the local store only', () => {
    expect(plan(view, { type: 'key_value', query: { get: { key: keyOwnedBy(view, hosts[0]!) } } })).toEqual({ kind: 'parts', local: true, remotes: [] });
  });

  it('sends a keyed clause owned elsewhere to its owner alone, by its gRPC endpoint, named by its application.server', () => {
    expect(plan(view, { type: 'key_value', query: { get: { key: keyOwnedBy(view, hosts[2]!) } } })).toEqual({
      kind: 'parts',
      local: false,
      remotes: [{ server: 'node-c:8080', grpcEndpoint: 'node-c:9090' }],
    });
  });

  it('answers NO_RESULT for a key owned elsewhere when remote access is not allowed', () => {
    const key = keyOwnedBy(view, hosts[1]!);
    const result = plan(view, { type: 'key_value', query: { get: { key } }, set_options: { remote_access_allowed: false } });
    expect(result).toEqual({ kind: 'no_result', reason: 'the key belongs to node-b:8080 and remote access is not allowed (remote_access_allowed=false)' });
  });

  it('answers NOT_AVAILABLE when nobody owns the partition of the key', () => {
    const partial = viewWith([{ ...hosts[0]!, partitions: [0] }]);
    let key = 'k';
    for (let i = 0; partial.partitionOf(key) === 0; i++) key = `k${i}`;
    expect(plan(partial, { type: 'key_value', query: { get: { key } } })).toEqual({
      kind: 'not_available',
      reason: `no server owns partition ${partial.partitionOf(key)} of store 'kv' right now`,
    });
  });

  it('answers every clause on a global store here alone, whoever owns the key elsewhere', () => {
    const global = viewWith(hosts);
    global.global.add('kv');
    for (const query of [{ get: { key: keyOwnedBy(global, hosts[2]!) } }, { all: {} }, { count: {} }]) {
      expect(plan(global, { type: 'key_value', query })).toEqual({ kind: 'parts', local: true, remotes: [] });
    }
  });

  it('sends other clauses to every host of the store: locally and to each peer', () => {
    for (const query of [{ all: {} }, { count: {} }, { range: { key_from: 'a', key_to: 'z' } }, { prefix_scan: { prefix: 'a' } }]) {
      expect(plan(view, { type: 'key_value', query })).toEqual({
        kind: 'parts',
        local: true,
        remotes: [
          { server: 'node-b:8080', grpcEndpoint: 'node-b:9090' },
          { server: 'node-c:8080', grpcEndpoint: 'node-c:9090' },
        ],
      });
    }
  });

  it('keeps a non-keyed query local when remote access is not allowed', () => {
    expect(plan(view, { type: 'key_value', query: { all: {} }, set_options: { remote_access_allowed: 'false' } })).toEqual({
      kind: 'parts',
      local: true,
      remotes: [],
    });
  });

  it('does not ask this node when it hosts no partition of the store', () => {
    const notHere = viewWith([{ ...hosts[0]!, partitions: [] }, hosts[1]!, hosts[2]!]);
    const result = plan(notHere, { type: 'key_value', query: { all: {} } });
    expect(result).toMatchObject({ kind: 'parts', local: false });
    expect(plan(notHere, { type: 'key_value', query: { all: {} }, set_options: { remote_access_allowed: false } })).toMatchObject({ kind: 'no_result' });
  });

  it('answers NOT_AVAILABLE when no server hosts the store', () => {
    expect(plan(viewWith([]), { type: 'key_value', query: { all: {} } })).toEqual({
      kind: 'not_available',
      reason: "no server hosts a partition of store 'kv' right now",
    });
  });
});
