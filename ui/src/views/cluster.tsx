/**
 * Which node hosts which partitions of which store. A store's partitions are those of the source topics of its
 * sub-topology, so a node hosts partition p of the store when it is assigned partition p of one of those topics.
 */

import { api, type Application, type TopologyDag } from '../api';
import { ErrorNote, Section, usePoll } from '../components/common';

interface StoreRow {
  application: string;
  store: string;
  partition: number;
  active: string[];
  standby: string[];
}

function sourceTopicsByStore(topology: TopologyDag): Map<string, Set<string>> {
  const byStore = new Map<string, Set<string>>();
  const nodes = [...topology.subTopologies.map((s) => s.nodes), ...topology.globalStores.map((g) => [g.source, g.processor])];
  for (const sub of nodes) {
    const topics = sub.flatMap((n) => n.topics ?? []);
    for (const node of sub) for (const store of node.stores ?? []) byStore.set(store, new Set([...(byStore.get(store) ?? []), ...topics]));
  }
  return byStore;
}

function storeRows(application: Application, topology: TopologyDag): StoreRow[] {
  const rows = new Map<string, StoreRow>();
  const row = (store: string, partition: number) => {
    const key = `${store}#${partition}`;
    const existing = rows.get(key) ?? { application: application.id, store, partition, active: [], standby: [] };
    rows.set(key, existing);
    return existing;
  };
  for (const [store, topics] of sourceTopicsByStore(topology)) {
    // Internal topics are described without the application id prefix that their real (assigned) names carry.
    const feeds = (topic: string) => topics.has(topic) || topics.has(topic.replace(`${application.id}-`, ''));
    for (const host of application.instances) {
      const name = host.endpoint ? `${host.endpoint.address}:${host.endpoint.port}${host.isLocal ? ' (this node)' : ''}` : '(unknown)';
      for (const a of host.metadata.assignments) if (feeds(a.name)) for (const p of a.partitions) row(store, p).active.push(name);
      for (const a of host.metadata.standbyAssignments) if (feeds(a.name)) for (const p of a.partitions) row(store, p).standby.push(name);
    }
  }
  return [...rows.values()].sort((a, b) => a.store.localeCompare(b.store) || a.partition - b.partition);
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

export function ClusterView() {
  const polled = usePoll(loadCluster, 5000, []);
  return (
    <div class="view">
      <ErrorNote error={polled.error} />
      <Section title="Store partitions by node">
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
              <tr key={`${r.application}/${r.store}/${r.partition}`}>
                <td>{r.application}</td>
                <td>{r.store}</td>
                <td>{r.partition}</td>
                <td>{r.active.join(', ') || <span class="muted">none</span>}</td>
                <td>{r.standby.join(', ') || <span class="muted">none</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {polled.data?.length === 0 ? <p class="muted">No store partition is assigned yet.</p> : null}
      </Section>
    </div>
  );
}
