/**
 * The Kubernetes manifests: every overlay rendered with `kubectl kustomize`, each resource checked against the
 * Kubernetes API schemas (package kubernetes-models), and the pod they describe checked against Sluice itself: the
 * init container is run to produce the configuration file, Sluice loads it with the pod's environment as the
 * kubelet expands it, and ports, probes, scrape annotations, volumes and Services must agree with what it reads
 * and serves.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { checkExposure } from '../../src/host/config/exposure';
import { loadHostConfig, type HostConfig } from '../../src/host/config/host-config';
import { checkPeerExposure, loadPeerSecurity } from '../../src/host/config/peers';
import { buildServer } from '../../src/server/app';
import { hashPassword } from '../../src/server/auth/password-hash';
import { FakeQueries, FakeRegistry } from '../../src/server/testing/fake-instances';
import { makeTestCertificates } from '../../src/streams/kafka/testing/certificates';
import { parseEndpoint } from '../../src/streams/runtime/streams-config';
import { readDockerfile, sourceInRepository } from './support/image';
import {
  containerEnvironment,
  kubectl,
  materializeVolumes,
  mountedPath,
  only,
  overlays,
  render,
  schemaViolations,
  type Container,
  type NetworkPolicy,
  type PodDisruptionBudget,
  type Resource,
  type Service,
  type StatefulSet,
} from './support/manifests';
import { checkInstances } from './support/sluice-config';
import { HEAP_SHARE } from '../../src/streams/runtime/memory-budget';

/** What each overlay promises beyond what every one must do. */
const EXPECTED: Record<string, { replicas: number; antiAffinity: boolean; credentials: boolean }> = {
  dev: { replicas: 1, antiAffinity: false, credentials: false },
  prod: { replicas: 3, antiAffinity: true, credentials: true },
};
/** The peers' TLS files and cluster secret (docs/security.md, "Security between nodes"), where credentials are required. */
const PEER_CERTIFICATES = makeTestCertificates(['*.sluice-headless.streams.svc.cluster.local'], 'unused');
const PEERS_SECRET = {
  'sluice-peers': {
    'ca.crt': PEER_CERTIFICATES.ca,
    'tls.crt': PEER_CERTIFICATES.broker.chain,
    'tls.key': PEER_CERTIFICATES.broker.key,
    secret: 'peer-s3cret-0123456789abcdef',
  },
};
const POD = { namespace: 'streams', ordinal: 0 };
/** The Secret a user creates for credentials (docs/kubernetes.md). */
/** Its password as `sluice hash-password` writes it (a cheap scrypt cost: this is a test). */
const authSecret = async () => {
  const hash = await hashPassword('s3cret', { N: 1024, r: 8, p: 1 });
  return { 'sluice-auth': { 'auth.yaml': `server:\n  users:\n    admin: { password: "${hash}", role: operator }\n` } };
};
/** The Secret with the Kafka credentials (docs/security.md, "Connecting to a secured Kafka"): SCRAM user and password, the brokers' CA. */
const KAFKA_SECRET = { 'sluice-kafka': { username: 'sluice', password: 'kafka-s3cret', 'ca.crt': makeTestCertificates(['kafka'], 'unused').ca } };
const CREDENTIALS = `Basic ${Buffer.from('admin:s3cret').toString('base64')}`;
/** Time Sluice needs after closing its instances: the gRPC server's grace (1 s) and the HTTP server's close. */
const STOP_MARGIN_MS = 10_000;
/** The least memory budget a pod should have: an idle node with the examples, caches and buffers, some store pages. */
const LEAST_BUDGET_MIB = 512;
const mebibytes = (quantity: string) => {
  const [, amount, unit] = /^(\d+)(Mi|Gi)$/.exec(quantity) ?? [];
  if (amount === undefined) throw new Error(`memory quantity ${quantity} is not in Mi or Gi`);
  return Number(amount) * (unit === 'Gi' ? 1024 : 1);
};

const stages = readDockerfile();
const entrypoint = stages[stages.length - 1]!.entrypoint!;

if (!kubectl) process.stderr.write('deploy manifests: skipped, kubectl is not on PATH (it renders the Kustomize overlays)\n');
const describeIfKubectl = kubectl ? describe : describe.skip;

describeIfKubectl.each(overlays())('overlay %s', (overlay) => {
  let resources: Resource[];
  let statefulSet: StatefulSet;
  let container: Container;
  let config: HostConfig;
  let env: Record<string, string>;
  let volumes: Map<string, string>;
  let app: FastifyInstance;
  let work: string;
  const podName = () => `${statefulSet.metadata.name}-${POD.ordinal}`;
  const containerPort = (port: string | number) => (typeof port === 'number' ? port : container.ports!.find((p) => p.name === port)?.containerPort);

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), `sluice-pod-${overlay}-`));
    resources = render(overlay);
    statefulSet = only<StatefulSet>(resources, 'StatefulSet');
    const pod = statefulSet.spec.template.spec;
    container = pod.containers.find((c) => c.name === 'sluice')!;
    // The image's entrypoint runs, with the pod's arguments if any.
    expect(container.command).toBeUndefined();
    volumes = materializeVolumes(statefulSet, resources, work, EXPECTED[overlay]?.credentials ? { ...(await authSecret()), ...PEERS_SECRET } : {});
    // The init containers, run as the pod runs them: their paths through their mounts, else from the image.
    for (const init of pod.initContainers ?? []) {
      const [command, ...args] = [...(init.command ?? []), ...(init.args ?? [])];
      expect(command).toBe('node');
      const local = args.map((arg) => (arg.startsWith('/') ? (mountedPath(init, volumes, arg) ?? sourceInRepository(arg, stages) ?? arg) : arg));
      execFileSync(process.execPath, local, { stdio: 'pipe' });
    }
    env = containerEnvironment(container, resources, { name: podName(), namespace: POD.namespace }, EXPECTED[overlay]?.credentials ? { ...KAFKA_SECRET, ...PEERS_SECRET } : {});
    const [, , , flag, configPath] = [...entrypoint, ...(container.args ?? [])];
    expect(flag).toBe('--config');
    config = loadHostConfig({ config: mountedPath(container, volumes, configPath!) }, env);
    app = await buildServer({ instances: new FakeRegistry('word-count'), queries: new FakeQueries(), access: { users: config.server.users, headless: config.server.headless } });
  });

  afterAll(async () => {
    await app?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('every resource is valid against the Kubernetes API schemas, unknown fields included', () => {
    expect(resources.map((r) => r.kind).sort()).toEqual(['ConfigMap', 'ConfigMap', 'NetworkPolicy', 'PodDisruptionBudget', 'Service', 'Service', 'StatefulSet']);
    expect(schemaViolations(resources)).toEqual([]);
  });

  it('Sluice loads the pod configuration: its instances check out, and credentials are merged in where required', () => {
    expect(checkInstances(config)).toEqual(['word-count']);
    // It listens on all interfaces: with users, or without them explicitly allowed.
    expect(() => checkExposure(config.server)).not.toThrow();
    expect(config.streams['bootstrap.servers']).toBe(env.SLUICE_BOOTSTRAP_SERVERS);
    const expected = EXPECTED[overlay];
    if (expected === undefined) return;
    expect(config.server.users).toEqual(expected.credentials ? { admin: { password: expect.stringMatching(/^scrypt\$/), role: 'operator' } } : undefined);
    const auth = statefulSet.spec.template.spec.volumes!.find((volume) => volume.secret?.secretName === 'sluice-auth')!;
    expect(auth.secret!.optional).toBe(!expected.credentials);
    if (!expected.credentials) return;
    // The Kafka credentials come from the Secret sluice-kafka through ${env:...}: none of them is in the ConfigMap.
    const kafka = KAFKA_SECRET['sluice-kafka'];
    expect(config.streams).toMatchObject({
      'security.protocol': 'SASL_SSL',
      'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="${kafka.username}" password="${kafka.password}";`,
      'ssl.truststore.certificates': kafka['ca.crt'],
    });
    const configMaps = JSON.stringify(resources.filter((r) => r.kind === 'ConfigMap'));
    expect(configMaps).not.toContain(kafka.password);
  });

  it('peers authenticate each other where credentials are required, from the Secret sluice-peers; the peer port is never open with users', () => {
    expect(() => checkPeerExposure(config)).not.toThrow();
    const expected = EXPECTED[overlay];
    if (expected === undefined) return;
    if (!expected.credentials) {
      expect(config.peers).toEqual({});
      return;
    }
    const peers = PEERS_SECRET['sluice-peers'];
    expect(config.peers?.secret).toBe(peers.secret);
    const tls = config.peers!.tls!;
    // The TLS files are the pod's paths: read here through the container's mounts of the Secret.
    const local = { ca: mountedPath(container, volumes, tls.ca)!, certificate: mountedPath(container, volumes, tls.certificate)!, key: mountedPath(container, volumes, tls.key)! };
    const security = loadPeerSecurity({ tls: local });
    expect([security.tls!.ca.toString(), security.tls!.certificate.toString(), security.tls!.key.toString()]).toEqual([peers['ca.crt'], peers['tls.crt'], peers['tls.key']]);
    const volume = statefulSet.spec.template.spec.volumes!.find((v) => v.secret?.secretName === 'sluice-peers')!;
    expect(container.volumeMounts!.find((m) => m.name === volume.name)?.readOnly).toBe(true);
    expect(JSON.stringify(resources.filter((r) => r.kind === 'ConfigMap'))).not.toContain(peers.secret);
  });

  it('a NetworkPolicy lets only the StatefulSet’s pods reach the peer port, and anyone the HTTP port', () => {
    const policy = only<NetworkPolicy>(resources, 'NetworkPolicy');
    const labels = statefulSet.spec.template.metadata.labels;
    /** Selects the StatefulSet's pods, and only pods that carry every label of its own selector. */
    const selectsOnlyThePods = (selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined) =>
      selector?.matchExpressions === undefined &&
      Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
      Object.entries(statefulSet.spec.selector.matchLabels).every(([key, value]) => selector?.matchLabels?.[key] === value);
    expect(selectsOnlyThePods(policy.spec.podSelector)).toBe(true);
    expect(policy.spec.policyTypes).toContain('Ingress');
    const rules = policy.spec.ingress ?? [];
    // A rule without ports covers every port, one without peers every caller.
    const covers = (rule: (typeof rules)[number], port: number) => rule.ports === undefined || rule.ports.some((p) => containerPort(p.port) === port);
    const grpcRules = rules.filter((rule) => covers(rule, config.server.grpcPort));
    expect(grpcRules.length).toBeGreaterThan(0);
    for (const rule of grpcRules) {
      expect(rule.from?.length).toBeGreaterThan(0);
      for (const peer of rule.from!) expect({ peer, only: peer.namespaceSelector === undefined && peer.ipBlock === undefined && selectsOnlyThePods(peer.podSelector) }).toEqual({ peer, only: true });
    }
    expect(rules.some((rule) => covers(rule, config.server.port) && (rule.from === undefined || rule.from.length === 0))).toBe(true);
  });

  it("application.server is the pod's stable DNS name under the headless Service, at the HTTP port", () => {
    const headless = only<Service>(resources, 'Service', (s) => s.spec.clusterIP === 'None');
    expect(statefulSet.spec.serviceName).toBe(headless.metadata.name);
    // A pod that is restoring owns partitions: its peers must find it before it is ready.
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    const dnsName = `${podName()}.${headless.metadata.name}.${POD.namespace}.svc.cluster.local`;
    expect(config.server.advertisedHost).toBe(dnsName);
    expect(config.streams['application.server']).toBe(`${dnsName}:${config.server.port}`);
    expect(parseEndpoint('application.server', String(config.streams['application.server']))).toEqual({ host: dnsName, port: config.server.port });
  });

  it('container ports are the ports Sluice listens on, and the Services point at them', () => {
    expect(containerPort('http')).toBe(config.server.port);
    expect(containerPort('grpc')).toBe(config.server.grpcPort);
    const services = resources.filter((r): r is Service => r.kind === 'Service');
    for (const service of services) {
      for (const port of service.spec.ports) expect({ service: service.metadata.name, port: containerPort(port.targetPort) }).toEqual({ service: service.metadata.name, port: expect.any(Number) });
    }
    const headless = services.find((s) => s.spec.clusterIP === 'None')!;
    expect(headless.spec.ports.map((p) => containerPort(p.targetPort)).sort()).toEqual([config.server.port, config.server.grpcPort].sort());
    const client = services.find((s) => s.spec.clusterIP !== 'None')!;
    expect(client.spec.ports.map((p) => containerPort(p.targetPort))).toEqual([config.server.port]);
  });

  it('the probes are routes Sluice serves on its HTTP port, and answer without credentials', async () => {
    for (const probe of [container.livenessProbe!, container.readinessProbe!]) {
      expect(containerPort(probe.httpGet.port)).toBe(config.server.port);
      const response = await app.inject({ method: 'GET', url: probe.httpGet.path });
      expect({ path: probe.httpGet.path, status: response.statusCode, body: response.json() }).toEqual({ path: probe.httpGet.path, status: 200, body: { status: 'UP' } });
    }
    expect(container.livenessProbe!.httpGet.path).toBe('/health/liveness');
    expect(container.readinessProbe!.httpGet.path).toBe('/health/readiness');
  });

  it('the Prometheus annotations name the metrics route and port', async () => {
    const annotations = statefulSet.spec.template.metadata.annotations!;
    expect(annotations['prometheus.io/scrape']).toBe('true');
    expect(Number(annotations['prometheus.io/port'])).toBe(config.server.port);
    const headers = config.server.users ? { authorization: CREDENTIALS } : {};
    const response = await app.inject({ method: 'GET', url: annotations['prometheus.io/path']!, headers });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    // With credentials configured, the scrape job needs them too (docs/kubernetes.md).
    if (config.server.users) expect((await app.inject({ method: 'GET', url: annotations['prometheus.io/path']! })).statusCode).toBe(401);
  });

  it('state lives on the claimed volume; with a read-only root, the temporary directory is a volume too', () => {
    const claim = statefulSet.spec.volumeClaimTemplates.map((t) => t.metadata.name);
    const mount = container.volumeMounts!.find((m) => m.mountPath === config.streams['state.dir']);
    expect(mount && claim.includes(mount.name)).toBe(true);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(mountedPath(container, volumes, path.posix.join('/tmp', 'sluice-logs'))).toBeDefined();
  });

  it('runs as the image user, and the grace period outlasts a graceful shutdown', () => {
    const pod = statefulSet.spec.template.spec;
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(`${pod.securityContext?.runAsUser}`).toBe(stages[stages.length - 1]!.user!.split(':')[0]);
    expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThanOrEqual(config.shutdownTimeoutMs + STOP_MARGIN_MS);
    expect(new Set([...(pod.initContainers ?? []), ...pod.containers].map((c) => c.image)).size).toBe(1);
  });

  it('the memory limit is the memory budget: every thread’s heap together within its heap share, requested whole', () => {
    const nodeOptions = env.NODE_OPTIONS ?? stages[stages.length - 1]!.env.NODE_OPTIONS ?? '';
    const { limits, requests } = (container as unknown as { resources: { limits: { memory: string }; requests: { memory: string } } }).resources;
    const limitMiB = mebibytes(limits.memory);
    const percentage = Number(/--max-old-space-size-percentage=(\d+)/.exec(nodeOptions)?.[1]);
    expect(percentage).toBeGreaterThan(0);
    const threads = Number(config.streams['num.stream.threads'] ?? 1);
    expect((threads * percentage) / 100).toBeLessThanOrEqual(HEAP_SHARE);
    expect(limitMiB).toBeGreaterThanOrEqual(LEAST_BUDGET_MIB);
    expect(mebibytes(requests.memory)).toBe(limitMiB);
  });

  it('selectors of the Services and the PodDisruptionBudget select the pods', () => {
    const labels = statefulSet.spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
    expect(selects(statefulSet.spec.selector.matchLabels)).toBe(true);
    for (const service of resources.filter((r): r is Service => r.kind === 'Service')) expect(selects(service.spec.selector)).toBe(true);
    const budget = only<PodDisruptionBudget>(resources, 'PodDisruptionBudget');
    expect(selects(budget.spec.selector.matchLabels)).toBe(true);
    expect(budget.spec.maxUnavailable).toBe(1);
  });

  it('replicas and placement are the overlay’s', () => {
    const expected = EXPECTED[overlay];
    if (expected === undefined) return;
    expect(statefulSet.spec.replicas).toBe(expected.replicas);
    const spread = statefulSet.spec.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    expect(spread.some((term) => term.topologyKey === 'kubernetes.io/hostname' && Object.entries(term.labelSelector.matchLabels).every(([k, v]) => statefulSet.spec.template.metadata.labels[k] === v))).toBe(expected.antiAffinity);
  });
});

describeIfKubectl('overlays against each other', () => {
  it('the schema check catches a misspelt field and a wrong type', () => {
    const statefulSet = only<StatefulSet>(render('dev'), 'StatefulSet');
    const broken = (change: (container: Record<string, unknown>) => void) => {
      const copy = JSON.parse(JSON.stringify(statefulSet)) as StatefulSet;
      change(copy.spec.template.spec.containers[0] as unknown as Record<string, unknown>);
      return copy;
    };
    const misspelt = broken((container) => {
      container.readinesProbe = container.readinessProbe;
      delete container.readinessProbe;
    });
    const wrongType = broken((container) => {
      (container.ports as { containerPort: unknown }[])[0]!.containerPort = '8080';
    });
    expect(schemaViolations([misspelt])).toEqual([expect.stringContaining(`'"readinesProbe"' does not exist in type 'IContainer'`)]);
    expect(schemaViolations([wrongType])).toEqual([
      expect.stringContaining('containerPort must be integer'),
      expect.stringContaining(`Type 'string' is not assignable to type 'number'`),
    ]);
  });

  it('prod has larger volumes and more resources than dev, from the same base', () => {
    const [dev, prod] = ['dev', 'prod'].map((overlay) => only<StatefulSet>(render(overlay), 'StatefulSet'));
    const storage = (s: StatefulSet) => Number.parseInt(s.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage, 10);
    expect(storage(prod!)).toBeGreaterThan(storage(dev!));
    const memory = (s: StatefulSet) => (s.spec.template.spec.containers[0] as unknown as { resources: { limits: { memory: string } } }).resources.limits.memory;
    expect([memory(dev!), memory(prod!)]).toEqual(['512Mi', '4Gi']);
    expect(dev!.spec.template.spec.containers[0]!.image).not.toBe(prod!.spec.template.spec.containers[0]!.image);
  });
});
