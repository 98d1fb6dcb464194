/** The node and its cluster: the local instances with their state (live over SSE) and every node that hosts them. */

import { useEffect, useState } from 'preact/hooks';
import { api, streamPath, subscribe, type Application, type Instance, type StateEvent } from '../api';
import { ErrorNote, ScrollX, Section, Since, StateBadge, usePoll, ViewHeading } from '../components/common';

/** Browsers keep at most six connections to a host: past this many instances, states are polled instead. */
const MAX_LIVE_STREAMS = 3;

interface Overview {
  instances: Instance[];
  applications: Application[];
}

async function loadOverview(): Promise<Overview> {
  const ids = await api.get<string[]>('/api/v1/streams');
  const [instances, applications] = await Promise.all([
    Promise.all(ids.map((id) => api.get<Instance>(streamPath(id)))),
    Promise.all(ids.map((id) => api.get<Application>(`/api/v1/applications/${encodeURIComponent(id)}`))),
  ]);
  return { instances, applications };
}

interface NodeRow {
  server: string;
  isLocal: boolean;
  applications: { id: string; partitions: number; standbys: number }[];
}

function clusterNodes(applications: Application[]): NodeRow[] {
  const nodes = new Map<string, NodeRow>();
  for (const application of applications) {
    for (const host of application.instances) {
      const server = host.endpoint ? `${host.endpoint.address}:${host.endpoint.port}` : '(unknown endpoint)';
      const row = nodes.get(server) ?? { server, isLocal: host.isLocal, applications: [] };
      const count = (assignments: { partitions: number[] }[]) => assignments.reduce((sum, a) => sum + a.partitions.length, 0);
      row.applications.push({ id: application.id, partitions: count(host.metadata.assignments), standbys: count(host.metadata.standbyAssignments) });
      nodes.set(server, row);
    }
  }
  return [...nodes.values()].sort((a, b) => Number(b.isLocal) - Number(a.isLocal) || a.server.localeCompare(b.server));
}

export function OverviewView() {
  const polled = usePoll(loadOverview, 5000, []);
  const [live, setLive] = useState<Record<string, StateEvent>>({});
  const ids = (polled.data?.instances ?? []).map((i) => i.id);
  const key = ids.join(',');
  useEffect(() => {
    const closes = ids.slice(0, MAX_LIVE_STREAMS).map((id) => subscribe(id, 'state', (event) => setLive((states) => ({ ...states, [id]: event }))));
    return () => closes.forEach((close) => close());
  }, [key]);

  if (polled.data === undefined) return <ErrorNote error={polled.error} />;
  const nodes = clusterNodes(polled.data.applications);
  return (
    <div class="view">
      <ViewHeading title="Overview" />
      <ErrorNote error={polled.error} />
      <Section title="Instances on this node">
        <ScrollX label="Instances on this node">
          <table data-testid="instances">
            <thead>
              <tr>
                <th>Application</th>
                <th>Topology</th>
                <th>State</th>
                <th>Since</th>
                <th>Exists since</th>
              </tr>
            </thead>
            <tbody>
              {polled.data.instances.map((instance) => {
                const state = live[instance.id] ?? { state: instance.state.state, since: instance.state.since };
                return (
                  <tr key={instance.id}>
                    <td>
                      <a href={`#/instance/${encodeURIComponent(instance.id)}`}>{instance.id}</a>
                    </td>
                    <td>
                      {instance.name} <span class="muted">{instance.version}</span>
                    </td>
                    <td>
                      <StateBadge state={state.state} testId={`state-${instance.id}`} />
                    </td>
                    <td>
                      <Since zoned={state.since} />
                    </td>
                    <td>
                      <Since zoned={instance.since} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollX>
      </Section>
      <Section title="Nodes of the cluster">
        <ScrollX label="Nodes of the cluster">
          <table data-testid="nodes">
            <thead>
              <tr>
                <th>Node</th>
                <th>Applications (active partitions, standby partitions)</th>
              </tr>
            </thead>
            <tbody>
              {nodes.map((node) => (
                <tr key={node.server}>
                  <td>
                    {node.isLocal ? (
                      <strong>{node.server} (this node)</strong>
                    ) : (
                      <a href={`${location.protocol}//${node.server}/ui/`}>{node.server}</a>
                    )}
                  </td>
                  <td>{node.applications.map((a) => `${a.id} (${a.partitions}, ${a.standbys})`).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollX>
        {nodes.length === 0 ? <p class="muted">No instance has joined its group yet.</p> : null}
      </Section>
    </div>
  );
}
