/**
 * The query page: application, store and clause from what the node reports (`/ui/model`; the type is the store's
 * own), parameters with date-time pickers for times, `set_options`, the answer as a table (windowed keys and times
 * readable, sortable, exported as CSV or JSON, paged with the continuation token), and the same query as a curl
 * command. The query that ran is kept in the URL: opening it runs it again.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type ConsoleModel, type StoreQueryResult } from '../api';
import { ErrorNote, Section, ViewHeading } from '../components/common';
import { emptyForm, FLAG_OPTIONS, FormError, formFromHash, formToHash, isTimeParam, planQuery, resolve, type QueryBody, type QueryForm, type Sort } from '../query/form';
import { cellText, download, localInputValue, sortRows, tableOf, timeZone, toCsv, toJson, type Row, type Table } from '../query/table';

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(path: string, body: unknown, user: string | null): string {
  const auth = user === null ? '' : ` -u ${shellQuote(user)}`;
  return `curl -s${auth} -X POST ${shellQuote(`${location.origin}${path}`)} -H 'content-type: application/json' -d ${shellQuote(JSON.stringify(body))}`;
}

/** A query as it was run: what its later pages and its exports belong to, whatever the form says since. */
interface Ran {
  form: QueryForm;
  path: string;
  body: QueryBody;
  type: string;
  store: string;
  clause: string;
  note?: string;
}

interface Shown {
  ran: Ran;
  /** The tokens of the pages before and including this one; none on the first page. */
  tokens: string[];
  result: StoreQueryResult;
}

/** A URL opened or a hash changed by hand (back, forward, a pasted link) starts the page over from the URL. */
export function QueryView({ model }: { model: ConsoleModel }) {
  const [visit, setVisit] = useState(0);
  useEffect(() => {
    const onChange = () => setVisit((v) => v + 1);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return <QueryPage key={visit} model={model} initial={formFromHash(location.hash, model)} />;
}

function QueryPage({ model, initial }: { model: ConsoleModel; initial: ReturnType<typeof formFromHash> }) {
  const [form, setForm] = useState<QueryForm>(initial?.form ?? emptyForm(model));
  const [sort, setSort] = useState<Sort | undefined>(initial?.sort);
  const [shown, setShown] = useState<Shown | undefined>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const [copied, setCopied] = useState(false);
  // Only the latest request may show its answer: an earlier one that ends later is dropped.
  const latest = useRef(0);

  const resolved = resolve(model, form);
  const update = (patch: Partial<QueryForm>) => setForm({ ...form, ...patch });
  const path = `/api/v1/applications/${encodeURIComponent(form.app)}/stores/${encodeURIComponent(resolved.store)}`;
  let planned: ReturnType<typeof planQuery> | undefined;
  let problem: string | undefined;
  try {
    planned = planQuery(form, resolved);
  } catch (mistake) {
    if (!(mistake instanceof FormError)) throw mistake;
    problem = mistake.message;
  }

  const send = async (ran: Ran, tokens: string[]) => {
    const request = ++latest.current;
    setShown(undefined);
    setError(undefined);
    setRunning(true);
    const next = tokens[tokens.length - 1];
    const body = next === undefined ? ran.body : { ...ran.body, set_options: { ...ran.body.set_options, next } };
    try {
      const result = await api.post<StoreQueryResult>(ran.path, body);
      if (request === latest.current) setShown({ ran, tokens, result });
    } catch (failure) {
      if (request === latest.current) setError(failure);
    } finally {
      if (request === latest.current) setRunning(false);
    }
  };

  const run = (event?: Event) => {
    event?.preventDefault();
    if (planned === undefined) return;
    const hash = formToHash(form, resolved, sort);
    // A new entry per query run, so that back returns to the one before; a URL opened is only written as the page reads it.
    if (event === undefined) history.replaceState(null, '', hash);
    else if (location.hash !== hash) history.pushState(null, '', hash);
    const clause = Object.keys(planned.body.query)[0] ?? '';
    void send({ form, path, body: planned.body, type: resolved.type, store: resolved.store, clause, ...(planned.note ? { note: planned.note } : {}) }, []);
  };

  useEffect(() => {
    if (initial !== undefined) run();
  }, []);

  const sortBy = (next: Sort) => {
    setSort(next);
    if (shown) history.replaceState(null, '', formToHash(shown.ran.form, resolve(model, shown.ran.form), next));
  };

  const curl = planned === undefined ? '' : curlCommand(path, planned.body, model.user);
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
  const params = resolved.clause?.params ?? [];
  const optional = resolved.clause?.optional ?? [];
  const setParam = (param: string, value: string) => update({ params: { ...form.params, [param]: value } });
  const setOption = (option: string, value: string) => update({ options: { ...form.options, [option]: value } });
  const numeric = model.options.filter((o) => !FLAG_OPTIONS.includes(o));
  const optionInput = (option: string) => (
    <label key={option}>
      {option === 'limit' ? 'limit (page size)' : option}
      <input
        value={form.options[option] ?? ''}
        inputMode="numeric"
        placeholder="default"
        disabled={option === 'max_lag' && !form.allowStale}
        onInput={(e) => setOption(option, (e.target as HTMLInputElement).value)}
        data-testid={`option-${option}`}
      />
    </label>
  );
  const flag = (option: string, checked: boolean, onChange: (checked: boolean) => void) =>
    model.options.includes(option) ? (
      <label class="inline">
        <input type="checkbox" checked={checked} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} data-testid={`option-${option}`} /> {option}
      </label>
    ) : null;

  return (
    <div class="view">
      <ViewHeading title="Query" />
      <Section title="Query a state store">
        <form class="query-form" onSubmit={run}>
          <div class="row">
            {select('Application', form.app, model.applications.map((a) => a.id), (app) => update({ app, store: '' }), 'query-app')}
            {select('Store', resolved.store, resolved.stores.map((s) => s.name), (store) => update({ store }), 'query-store')}
            {resolved.typeFromStore ? (
              <label>
                Type
                <output class="query-type" data-testid="query-type">
                  {resolved.type}
                </output>
              </label>
            ) : (
              select('Type', resolved.type, model.storeTypes.map((t) => t.type), (type) => update({ type }), 'query-type')
            )}
            {select('Clause', resolved.clause?.name ?? '', resolved.clauses.map((c) => c.name), (clause) => update({ clause }), 'query-clause')}
          </div>
          {!resolved.typeFromStore && resolved.store !== '' ? <p class="muted">No partition of this store is open on this node: choose its type.</p> : null}
          <div class="row">
            {params.map((p) => (
              <label key={p}>
                {optional.includes(p) ? `${p} (optional)` : p}
                {isTimeParam(p) ? (
                  <input
                    type="datetime-local"
                    step="1"
                    value={localInputValue(form.params[p] ?? '')}
                    onInput={(e) => {
                      const text = (e.target as HTMLInputElement).value;
                      setParam(p, text === '' ? '' : String(new Date(text).getTime()));
                    }}
                    data-testid={`param-${p}`}
                  />
                ) : (
                  <input value={form.params[p] ?? ''} onInput={(e) => setParam(p, (e.target as HTMLInputElement).value)} data-testid={`param-${p}`} />
                )}
              </label>
            ))}
            {params.some((p) => p.startsWith('key') || p === 'prefix') ? (
              <label class="inline">
                <input type="checkbox" checked={form.keysAsJson} onChange={(e) => update({ keysAsJson: (e.target as HTMLInputElement).checked })} data-testid="keys-as-json" />{' '}
                keys as JSON
              </label>
            ) : null}
          </div>
          {params.some(isTimeParam) ? <p class="muted">Times are in {timeZone()}.</p> : null}
          <div class="row">
            {flag('allow_stale', form.allowStale, (allowStale) => update({ allowStale }))}
            {flag('remote_access_allowed', form.remoteAccessAllowed, (remoteAccessAllowed) => update({ remoteAccessAllowed }))}
            {numeric.includes('limit') ? optionInput('limit') : null}
          </div>
          <details>
            <summary>More set_options</summary>
            <div class="row">{numeric.filter((o) => o !== 'limit').map(optionInput)}</div>
          </details>
          {problem === undefined ? null : (
            <p class="muted" data-testid="form-problem">
              {problem}
            </p>
          )}
          <div class="buttons">
            <button type="submit" disabled={planned === undefined || resolved.store === ''} data-testid="run-query">
              {running ? 'Running…' : 'Run'}
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
      {shown ? <ResultSection shown={shown} sort={sort} onSort={sortBy} onPage={(tokens) => void send(shown.ran, tokens)} /> : null}
    </div>
  );
}

function ResultSection({ shown, sort, onSort, onPage }: { shown: Shown; sort: Sort | undefined; onSort: (sort: Sort) => void; onPage: (tokens: string[]) => void }) {
  const { result, ran, tokens } = shown;
  const table: Table = tableOf(result, ran.type);
  const rows: Row[] = sortRows(table.rows, sort);
  const paged = tokens.length > 0 || result.next !== undefined;
  const fileName = `${ran.store}-${ran.clause}${paged ? `-page-${tokens.length + 1}` : ''}`;
  const exports = (
    <div class="actions">
      <button type="button" onClick={() => download(`${fileName}.csv`, 'text/csv', toCsv(table, rows))} data-testid="export-csv">
        CSV
      </button>
      <button type="button" onClick={() => download(`${fileName}.json`, 'application/json', toJson(table, rows))} data-testid="export-json">
        JSON
      </button>
    </div>
  );
  return (
    <Section title={`Result: ${result.status}`} actions={exports}>
      <p data-testid="query-summary">
        {paged ? `Page ${tokens.length + 1}: ` : ''}
        {result.result.total} record(s) in {result.took} ms from {result.server}
        {result.timeout ? ' (timed out)' : ''}
        {result.result.error ? ` — ${result.result.error}` : ''}
      </p>
      {ran.note ? (
        <p class="muted" data-testid="query-note">
          {ran.note}
        </p>
      ) : null}
      {table.columns.some((c) => c.time) ? <p class="muted">Times are in {timeZone()}.</p> : null}
      <table data-testid="query-result" class="query-result">
        <thead>
          <tr>
            {table.columns.map((column) => {
              const active = sort?.column === column.id;
              return (
                <th key={column.id} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}>
                  <button type="button" class="link sort" onClick={() => onSort({ column: column.id, descending: active && !sort.descending })} data-testid={`sort-${column.id}`}>
                    {column.label}
                    {active ? (sort.descending ? ' ▼' : ' ▲') : ''}
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={row.failure ? 'failure' : ''}>
              {table.columns.map((column) => (
                <td key={column.id} data-label={column.label} class={column.id === 'key' || column.id === 'value' ? 'mono' : ''}>
                  {cellText(column, row.values[column.id])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {paged ? (
        <div class="buttons">
          <button type="button" disabled={tokens.length === 0} onClick={() => onPage(tokens.slice(0, -1))} data-testid="page-previous">
            Previous page
          </button>
          <button type="button" disabled={result.next === undefined} onClick={() => onPage([...tokens, result.next!])} data-testid="page-next">
            Next page
          </button>
        </div>
      ) : null}
    </Section>
  );
}
