/**
 * The Grafana dashboard and the Prometheus alert rules of deploy/monitoring/, checked against a real `sluice start`
 * node: once it runs a topology with persistent stores and has processed records, every metric name a panel, a
 * template variable or an alert reads is in its `/prometheus` scrape, and every label an expression's selector
 * matches on is a label of that metric there. A misspelt name would give an empty panel or an alert that never
 * fires, silently; here it fails. The alert file must also be loadable rules: each rule with its `for`, severity,
 * summary and a runbook section of docs/operations.md that exists.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { parsePrometheusStrictly, type ParsedFamily } from '../../src/streams/metrics/testing/strict-prometheus';
import { buildSluice, eventually, SluiceNode, type SluiceBuild } from '../cluster/support/sluice-cluster';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';

const REPO = path.resolve(__dirname, '../..');
const MONITORING = path.join(REPO, 'deploy/monitoring');

/** Labels Prometheus attaches to every scraped series (the target's), which the exposition does not carry. */
const TARGET_LABELS = new Set(['instance', 'job']);
/** PromQL words that read like metric names: binary operators, modifiers, the `inf`/`nan` literals. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan', 'atan2']);
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g;

/**
 * The metric names of a PromQL expression, parsed loosely rather than with a PromQL parser: string literals,
 * label matchers (`{...}`), ranges (`[...]`) and the label lists of `by`/`without`/`on`/`ignoring`/`group_*` are
 * dropped; of what remains, every identifier not preceded by `$` (a Grafana variable), a digit (`5m`, `1e3`) or a
 * dot, and not followed by `(` (a function or an aggregation), that is no keyword, is a metric name.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(STRING_LITERAL, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = [...bare.matchAll(/(?<![\w:.$])[a-zA-Z_:][a-zA-Z0-9_:]*(?![\w:])(?!\s*\()/g)].map(([name]) => name);
  return names.filter((name) => !KEYWORDS.has(name.toLowerCase()) && METRIC_NAME.test(name));
}

/** The label names each `name{...}` selector of an expression matches on, by metric name. */
function selectorLabels(expr: string): Array<{ metric: string; labels: string[] }> {
  const bare = expr.replace(STRING_LITERAL, '""');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}/g)].map(([, metric, matchers]) => ({
    metric: metric!,
    labels: [...matchers!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map(([, label]) => label!),
  }));
}

interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown; runbook?: unknown };
}

interface DashboardPanel {
  title: string;
  targets?: Array<{ expr: string }>;
  panels?: DashboardPanel[];
}

const alerts = parse(fs.readFileSync(path.join(MONITORING, 'sluice-alerts.yaml'), 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> };
const dashboard = JSON.parse(fs.readFileSync(path.join(MONITORING, 'sluice-dashboard.json'), 'utf8')) as {
  panels: DashboardPanel[];
  templating: { list: Array<{ name: string; type: string; query: string | { query: string } }> };
};

/** Every PromQL expression of both files, with where it is, for the failure messages. */
function expressions(): Array<{ where: string; expr: string }> {
  const found: Array<{ where: string; expr: string }> = [];
  for (const group of alerts.groups) for (const rule of group.rules) found.push({ where: `alert ${String(rule.alert)}`, expr: String(rule.expr) });
  const visit = (panels: DashboardPanel[]): void => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) found.push({ where: `panel "${panel.title}"`, expr: target.expr });
      visit(panel.panels ?? []);
    }
  };
  visit(dashboard.panels);
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query.query;
    // Grafana's label_values(<selector>, <label>): the selector is PromQL, the label is not a metric.
    const selector = /^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$/.exec(query)?.[1];
    if (selector === undefined) throw new Error(`variable ${variable.name}: expected label_values(<selector>, <label>), got ${query}`);
    found.push({ where: `variable ${variable.name}`, expr: selector });
  }
  return found;
}

/** GitHub's anchors of a page's headings, as docs links use them. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}\s+(.*?)\s*$/gm)) {
    anchors.add(heading!.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
  }
  return anchors;
}

describe('deploy/monitoring without a node', () => {
  it('names are extracted from PromQL as the dashboard and alerts write it', () => {
    expect(
      metricNames(
        'sum by (instance, topic) (deriv(streams_records_lag{client_id!~"a b{c}"}[10m])) > 0 and on (instance) up offset 5m ' +
          'or rate(process_cpu_seconds_total{instance=~"$instance"}[$__rate_interval]) > 1e3 unless x:recorded:sum',
      ),
    ).toEqual(['streams_records_lag', 'up', 'process_cpu_seconds_total', 'x:recorded:sum']);
    expect(selectorLabels('a{group="x", value!="y{z}"} and b')).toEqual([{ metric: 'a', labels: ['group', 'value'] }]);
  });

  it('the alert rules load and each has for, severity, summary and a runbook section of docs/operations.md', () => {
    const operations = headingAnchors(fs.readFileSync(path.join(REPO, 'docs/operations.md'), 'utf8'));
    const rules = alerts.groups.flatMap((group) => group.rules);
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const rule of rules) {
      const problems = [
        typeof rule.alert === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(rule.alert) ? null : 'alert',
        typeof rule.expr === 'string' && rule.expr.trim() !== '' ? null : 'expr',
        typeof rule.for === 'string' && /^\d+[smhdwy]$/.test(rule.for) ? null : 'for',
        ['critical', 'warning', 'info'].includes(String(rule.labels?.severity)) ? null : 'labels.severity',
        typeof rule.annotations?.summary === 'string' ? null : 'annotations.summary',
        typeof rule.annotations?.description === 'string' && rule.annotations.description.includes('docs/operations.md') ? null : 'annotations.description',
      ].filter((problem) => problem !== null);
      expect([rule.alert, problems]).toEqual([rule.alert, []]);
      const [page, anchor] = String(rule.annotations?.runbook).split('#');
      expect([rule.alert, page, operations.has(anchor ?? '')]).toEqual([rule.alert, 'docs/operations.md', true]);
    }
  });
});

describe('deploy/monitoring against a running node', () => {
  const clients = new KafkaTestClients();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-it-monitoring-'));
  const applicationId = uniqueName('monitoring');
  const input = uniqueName('monitoring-in');
  let build: SluiceBuild | undefined;
  let node: SluiceNode | undefined;
  let families: Map<string, ParsedFamily>;

  beforeAll(async () => {
    build = await buildSluice();
    await createTopics(await clients.admin(), [{ name: input, partitions: 2 }]);
    // The cluster tests' topology: every record into a key-value, a window and a session store, all persistent.
    node = await SluiceNode.start({ build, name: 'node', bootstrapServers: bootstrapServers().join(','), applicationId, inputTopic: input, workDir });
    const producer = await clients.producer();
    await producer.send({ topic: input, messages: Array.from({ length: 50 }, (_, i) => ({ key: `key-${i}`, value: `value-${i}` })) });
    const scrape = async () => parsePrometheusStrictly(String((await node!.get('/prometheus')).body));
    const processed = (scraped: Map<string, ParsedFamily>) =>
      (scraped.get('streams_process_total')?.samples ?? [])
        .filter((sample) => sample.labels.group === 'stream-thread-metrics')
        .reduce((sum, sample) => sum + sample.value, 0);
    families = await eventually('the node to run and process the 50 records', scrape, (scraped) => processed(scraped) >= 50);
  }, 300_000 + BROKER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await node?.stop();
    await clients.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  /** Family names and sample names: a histogram family `x` exports `x_bucket`, `x_sum` and `x_count`. */
  const exportedNames = () => new Set([...families].flatMap(([name, family]) => [name, ...family.samples.map((sample) => sample.name)]));

  it('every metric of every panel, variable and alert is one the node exports', () => {
    const exported = exportedNames();
    const missing: string[] = [];
    for (const { where, expr } of expressions()) {
      const names = metricNames(expr);
      expect([where, names.length > 0]).toEqual([where, true]);
      for (const name of names) if (!exported.has(name)) missing.push(`${where}: ${name}`);
    }
    expect(missing).toEqual([]);
    // The state and the restores are what the alerts are about: the node's scrape must hold their series, not only their names.
    expect(families.get('streams_state_info')!.samples.some((s) => s.labels.application_id === applicationId && s.labels.value === 'RUNNING')).toBe(true);
    expect(families.get('streams_restore_remaining_records_total')!.samples.some((s) => s.labels.application_id === applicationId)).toBe(true);
    // The disk alert compares the two: the free bytes are the disk's, the floor the node's setting (64 MiB by default).
    const ofApp = (name: string) => families.get(name)!.samples.find((s) => s.labels.application_id === applicationId)!.value;
    expect(ofApp('streams_state_dir_free_bytes')).toBeGreaterThan(0);
    expect(ofApp('streams_state_dir_min_free_bytes')).toBe(64 * 1024 * 1024);
  });

  it('every label a selector matches on is a label of that metric in the scrape', () => {
    const wrong: string[] = [];
    for (const { where, expr } of expressions()) {
      for (const { metric, labels } of selectorLabels(expr)) {
        const known = [...new Set(families.get(metric)?.samples.flatMap((sample) => Object.keys(sample.labels)) ?? [])];
        for (const label of labels) if (!known.includes(label) && !TARGET_LABELS.has(label)) wrong.push(`${where}: ${metric}{${label}}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
