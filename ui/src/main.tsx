/** The console's shell: who is looking, the navigation, and the view the location's hash names. */

import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type ConsoleModel } from './api';
import { ErrorNote } from './components/common';
import { ClusterView } from './views/cluster';
import { InstanceView } from './views/instance';
import { NotFoundView } from './views/not-found';
import { OverviewView } from './views/overview';
import { QueryView } from './views/query';
import './style.css';

/** Hash routes (`#/instance/<id>`) keep the node's one page at /ui: a reload lands on the same view. */
function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function App() {
  const [model, setModel] = useState<ConsoleModel | undefined>();
  const [error, setError] = useState<unknown>();
  const route = useRoute();
  useEffect(() => {
    api.get<ConsoleModel>('/ui/model').then(setModel, setError);
  }, [route[0]]);
  const [view = '', id = '', instanceTab = ''] = route;
  const tab = (href: string, label: string, active: boolean) => (
    <a href={href} class={active ? 'active' : ''} aria-current={active ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <nav class="top">
        <span class="brand">Sluice</span>
        {tab('#/', 'Overview', view === '' || view === 'instance')}
        {tab('#/query', 'Query', view === 'query')}
        {tab('#/cluster', 'Cluster', view === 'cluster')}
        <a href="/docs" target="_blank" rel="noopener">
          API docs
        </a>
        <span class="who">
          {model ? `${model.user ?? 'anonymous'}${model.role ? ` (${model.role})` : ''}${model.headless ? ' · headless' : ''} · v${model.version}` : ''}
        </span>
      </nav>
      <main>
        <ErrorNote error={error} />
        {model === undefined ? null : view === '' ? (
          <OverviewView />
        ) : view === 'instance' && id !== '' ? (
          <InstanceView key={id} id={id} tab={instanceTab} model={model} />
        ) : view === 'query' ? (
          <QueryView model={model} />
        ) : view === 'cluster' ? (
          <ClusterView />
        ) : (
          <NotFoundView what={`The console has no view at #/${route.join('/')}.`} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
