/**
 * The query console: application, store, type, clause and parameters from what the node reports (`/ui/model`),
 * `set_options`, the answer as one table row per record with the server and status of its part, and the same query
 * as a curl command.
 */

import { useEffect, useState } from 'preact/hooks';
import { api, type ConsoleModel, type StoreQueryResult } from '../api';
import { ErrorNote, Section } from '../components/common';

/** What a parameter input holds: times are numbers; keys are strings unless "keys as JSON" is ticked. */
function paramValue(param: string, text: string, keysAsJson: boolean): unknown {
  if (param.startsWith('time') || param === 'as_of') return Number(text);
  return keysAsJson ? (JSON.parse(text) as unknown) : text;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(path: string, body: unknown, user: string | null): string {
  const auth = user === null ? '' : ` -u ${shellQuote(user)}`;
  return `curl -s${auth} -X POST ${shellQuote(`${location.origin}${path}`)} -H 'content-type: application/json' -d ${shellQuote(JSON.stringify(body))}`;
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function QueryView({ model }: { model: ConsoleModel }) {
  const [app, setApp] = useState(model.applications[0]?.id ?? '');
  const stores = model.applications.find((a) => a.id === app)?.stores ?? [];
  const [store, setStore] = useState(stores[0]?.name ?? '');
  const reported = stores.find((s) => s.name === store)?.type ?? null;
  const [type, setType] = useState(reported ?? 'key_value');
  const clauses = model.storeTypes.find((t) => t.type === type)?.clauses ?? [];
  const [clause, setClause] = useState(clauses[0]?.name ?? '');
  const params = clauses.find((c) => c.name === clause)?.params ?? [];
  const optional = clauses.find((c) => c.name === clause)?.optional ?? [];
  const [values, setValues] = useState<Record<string, string>>({});
  const [keysAsJson, setKeysAsJson] = useState(false);
  const [options, setOptions] = useState<Record<string, string>>({});
  const [result, setResult] = useState<StoreQueryResult | undefined>();
  const [error, setError] = useState<unknown>();
  const [copied, setCopied] = useState(false);

  useEffect(() => setStore(stores[0]?.name ?? ''), [app]);
  useEffect(() => setType(reported ?? 'key_value'), [store, reported]);
  useEffect(() => {
    if (!clauses.some((c) => c.name === clause)) setClause(clauses[0]?.name ?? '');
  }, [type]);

  const path = `/api/v1/applications/${encodeURIComponent(app)}/stores/${encodeURIComponent(store)}`;
  let body: unknown;
  let bodyError: unknown;
  try {
    const setOptions = Object.fromEntries(Object.entries(options).filter(([, v]) => v.trim() !== ''));
    // An optional parameter left empty is left out (a versioned get without as_of answers the latest version).
    const given = params.filter((p) => !optional.includes(p) || (values[p] ?? '').trim() !== '');
    body = { type, set_options: setOptions, query: { [clause]: Object.fromEntries(given.map((p) => [p, paramValue(p, values[p] ?? '', keysAsJson)])) } };
  } catch (parseError) {
    bodyError = parseError;
  }

  const run = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api.post<StoreQueryResult>(path, body));
    } catch (failure) {
      setError(failure);
    }
  };
  const curl = body === undefined ? '' : curlCommand(path, body, model.user);
  const copy = () =>
    navigator.clipboard.writeText(curl).then(
      () => setCopied(true),
      // Without clipboard access (an insecure origin) the command stays on screen to copy by hand.
      () => setCopied(false),
    );

  const select = (label: string, value: string, choices: string[], onChange: (v: string) => void, testId: string) => (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} data-testid={testId}>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <div class="view">
      <Section title="Query a state store">
        <form class="query-form" onSubmit={run}>
          <div class="row">
            {select('Application', app, model.applications.map((a) => a.id), setApp, 'query-app')}
            {select('Store', store, stores.map((s) => s.name), setStore, 'query-store')}
            {select('Type', type, model.storeTypes.map((t) => t.type), setType, 'query-type')}
            {select('Clause', clause, clauses.map((c) => c.name), setClause, 'query-clause')}
          </div>
          {reported === null && store !== '' ? <p class="muted">No partition of this store is open on this node: choose its type.</p> : null}
          <div class="row">
            {params.map((p) => (
              <label key={p}>
                {optional.includes(p) ? `${p} (optional)` : p}
                <input value={values[p] ?? ''} onInput={(e) => setValues({ ...values, [p]: (e.target as HTMLInputElement).value })} data-testid={`param-${p}`} />
              </label>
            ))}
            {params.some((p) => p.startsWith('key') || p === 'prefix') ? (
              <label class="inline">
                <input type="checkbox" checked={keysAsJson} onChange={(e) => setKeysAsJson((e.target as HTMLInputElement).checked)} /> keys as JSON
              </label>
            ) : null}
          </div>
          <details>
            <summary>set_options</summary>
            <div class="row">
              {model.options.map((o) => (
                <label key={o}>
                  {o}
                  <input value={options[o] ?? ''} placeholder="default" onInput={(e) => setOptions({ ...options, [o]: (e.target as HTMLInputElement).value })} />
                </label>
              ))}
            </div>
          </details>
          <ErrorNote error={bodyError} />
          <div class="buttons">
            <button type="submit" disabled={body === undefined || store === ''} data-testid="run-query">
              Run
            </button>
          </div>
        </form>
        <div class="curl">
          <pre data-testid="curl">{curl}</pre>
          <button type="button" onClick={copy}>
            {copied ? 'Copied' : 'Copy as curl'}
          </button>
        </div>
      </Section>
      <ErrorNote error={error} />
      {result ? <ResultSection result={result} /> : null}
    </div>
  );
}

function ResultSection({ result }: { result: StoreQueryResult }) {
  const rows = [
    ...result.result.success.flatMap((part) =>
      part.records.map((record) => ({ key: show(record.key), value: show(record.value), server: part.server, remote: part.remote, status: 'SUCCESS' })),
    ),
    ...result.result.failure.map((part) => ({
      key: '',
      value: part.errors.map((e) => e.message).join('; '),
      server: part.server,
      remote: part.remote,
      status: 'FAILURE',
    })),
  ];
  return (
    <Section title={`Result: ${result.status}`}>
      <p data-testid="query-summary">
        {result.result.total} record(s) in {result.took} ms from {result.server}
        {result.timeout ? ' (timed out)' : ''}
        {result.result.error ? ` — ${result.result.error}` : ''}
      </p>
      <table data-testid="query-result">
        <thead>
          <tr>
            <th>Key</th>
            <th>Value</th>
            <th>Server</th>
            <th>Part</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={row.status === 'FAILURE' ? 'failure' : ''}>
              <td class="mono">{row.key}</td>
              <td class="mono">{row.value}</td>
              <td>
                {row.server} {row.remote ? <span class="muted">(remote)</span> : null}
              </td>
              <td>{row.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
