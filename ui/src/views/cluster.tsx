/**
 * Which node hosts which partitions of which store. A store's partitions are those of the source topics of its
 * sub-topology, so a node hosts partition p of the store when it is assigned partition p of one of those topics; a
 * node assigned p of several of them (a join, a cogroup) still hosts p once. A global store is read whole by every
 * node, outside the group's assignment: it shows as one row, on every node that lists it.
 */

import { api, type Application, type TopologyDag } from '../api';
import { ErrorNote, ScrollX, Section, usePoll, ViewHeading } from '../components/common';

interface StoreRow {
  application: string;
  store: string;
  /** Undefined for a global store: every node holds all of its partitions. */
  partition?: number;
  active: Set<string>;
  standby: Set<string>;
}

function sourceTopicsByStore(topology: TopologyDag): Map<string, Set<string>> {
  const byStore = new Map<string, Set<string>>();
  for (const { nodes } of topology.subTopologies) {
    const topics = nodes.flatMap((n) => n.topics ?? []);
    for (const node of nodes) for (const store of node.stores ?? []) byStore.set(store, new Set([...(byStore.get(store) ?? []), ...topics]));
  }
  return byStore;
}

const globalStoreNames = (topology: TopologyDag): string[] => [...new Set(topology.globalStores.flatMap((g) => [...(g.source.stores ?? []), ...(g.processor.stores ?? [])]))];

function hostName(host: Application['instances'][number]): string {
  return host.endpoint ? `${host.endpoint.address}:${host.endpoint.port}${host.isLocal ? ' (this node)' : ''}` : '(unknown)';
}

function storeRows(application: Application, topology: TopologyDag): StoreRow[] {
  const rows = new Map<string, StoreRow>();
  const row = (store: string, partition?: number) => {
    const key = `${store}#${partition ?? 'global'}`;
    const existing = rows.get(key) ?? { application: application.id, store, partition, active: new Set<string>(), standby: new Set<string>() };
    rows.set(key, existing);
    return existing;
  };
  for (const [store, topics] of sourceTopicsByStore(topology)) {
    // Internal topics are described without the application id prefix that their real (assigned) names carry.
    const feeds = (topic: string) => topics.has(topic) || topics.has(topic.replace(`${application.id}-`, ''));
    for (const host of application.instances) {
      for (const a of host.metadata.assignments) if (feeds(a.name)) for (const p of a.partitions) row(store, p).active.add(hostName(host));
      for (const a of host.metadata.standbyAssignments) if (feeds(a.name)) for (const p of a.partitions) row(store, p).standby.add(hostName(host));
    }
  }
  for (const store of globalStoreNames(topology)) {
    const global = row(store);
    for (const host of application.instances) if (host.metadata.stores.includes(store)) global.active.add(hostName(host));
  }
  return [...rows.values()].sort((a, b) => a.store.localeCompare(b.store) || (a.partition ?? -1) - (b.partition ?? -1));
}

async function loadCluster(): Promise<StoreRow[]> {
  const ids = await api.get<string[]>('/api/v1/applications');
  const perApplication = await Promise.all(
    ids.map(async (id) => {
      const path = `/api/v1/applications/${encodeURIComponent(id)}`;
      const [application, topology] = await Promise.all([api.get<Application>(path), api.get<TopologyDag>(`${path}/topology`)]);
      return storeRows(application, topology);
    }),
  );
  return perApplication.flat();
}

const hosts = (names: Set<string>) => (names.size > 0 ? [...names].sort().join(', ') : <span class="muted">none</span>);

export function ClusterView() {
  const polled = usePoll(loadCluster, 5000, []);
  return (
    <div class="view">
      <ViewHeading title="Cluster" />
      <ErrorNote error={polled.error} />
      <Section title="Store partitions by node">
        <ScrollX label="Store partitions by node">
          <table data-testid="store-partitions">
            <thead>
              <tr>
                <th>Application</th>
                <th>Store</th>
                <th>Partition</th>
                <th>Active on</th>
                <th>Standby on</th>
              </tr>
            </thead>
            <tbody>
              {(polled.data ?? []).map((r) => (
                <tr key={`${r.application}/${r.store}/${r.partition ?? 'global'}`} data-store={r.store} data-partition={r.partition ?? 'global'}>
                  <td>{r.application}</td>
                  <td>{r.store}</td>
                  <td>{r.partition ?? <span title="A global store: every node holds all of its partitions">all (global)</span>}</td>
                  <td>{hosts(r.active)}</td>
                  <td>{hosts(r.standby)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollX>
        {polled.data?.length === 0 ? <p class="muted">No store partition is assigned yet.</p> : null}
      </Section>
    </div>
  );
}
