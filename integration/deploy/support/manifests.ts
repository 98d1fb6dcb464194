/**
 * The Kubernetes manifests as a cluster would receive them: each overlay rendered by `kubectl kustomize`, checked
 * against the Kubernetes API schemas of the `kubernetes-models` package, and the pod's view of them (its environment
 * as the kubelet expands it, its volumes as files).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { findOnPath } from '../../../src/host/broker/toolchain';
import { REPO } from './image';

export const KUSTOMIZE_ROOT = path.join(REPO, 'deploy/kubernetes');

export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The overlays under deploy/kubernetes/overlays: every one is rendered and checked. */
export function overlays(): string[] {
  return fs.readdirSync(path.join(KUSTOMIZE_ROOT, 'overlays')).sort();
}

export const kubectl = findOnPath('kubectl');

export function render(overlay: string): Resource[] {
  const output = execFileSync(kubectl!, ['kustomize', path.join(KUSTOMIZE_ROOT, 'overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) throw new Error(`kubectl kustomize ${overlay}: ${document.errors[0]!.message}`);
    return document.toJS() as Resource;
  });
}

/** `kubernetes-models/<group>/<version>/<Kind>`: the model of a resource, and the name of its TypeScript interface. */
function modelModule(resource: Resource): string {
  return `kubernetes-models/${resource.apiVersion}/${resource.kind}`;
}

/** Validation by the model (required fields, types, formats, enums), as `new Model(resource).validate()` does it. */
function modelErrors(resource: Resource): string[] {
  // Loaded by name: which models are needed depends on what the overlays render.
  const module = require(modelModule(resource)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = module[resource.kind];
  if (Model === undefined) return [`${resource.kind}: no such kind in ${resource.apiVersion}`];
  try {
    new Model(resource).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

/**
 * Fields the API does not know. The models' validators accept unknown fields (the API's OpenAPI schemas do not
 * close their objects), while the API server refuses them under strict field validation: the package's TypeScript
 * interfaces of the same schemas do close them, so each resource is type-checked against its interface as an object
 * literal, whose excess properties the compiler reports.
 */
function unknownFieldErrors(resources: Resource[]): string[][] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-manifests-'));
  try {
    const file = path.join(dir, 'resources.ts');
    const modelsDir = path.dirname(require.resolve('kubernetes-models/package.json'));
    const lines = resources.map((resource, i) => {
      const module = path.join(modelsDir, resource.apiVersion, resource.kind);
      return `export const resource${i}: import(${JSON.stringify(module)}).I${resource.kind} = ${JSON.stringify(resource)};`;
    });
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, types: [] });
    const errors: string[][] = resources.map(() => []);
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) throw new Error(`type-checking the resources: ${message}`);
      errors[diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line]!.push(message);
    }
    return errors;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every violation of the API schemas, as `Kind/name: message`; empty when all resources are valid. */
export function schemaViolations(resources: Resource[]): string[] {
  const unknown = unknownFieldErrors(resources);
  return resources.flatMap((resource, i) =>
    [...modelErrors(resource), ...unknown[i]!].map((message) => `${resource.kind}/${resource.metadata.name}: ${message}`),
  );
}

export function only<T extends Resource>(resources: Resource[], kind: string, predicate: (resource: T) => boolean = () => true): T {
  const found = resources.filter((resource) => resource.kind === kind && predicate(resource as T));
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as T;
}

// The parts of the resources these tests read.
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
export interface Probe {
  httpGet: { path: string; port: string | number };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  securityContext?: { readOnlyRootFilesystem?: boolean; runAsUser?: number };
}
export interface Volume {
  name: string;
  configMap?: { name: string };
  secret?: { secretName: string; optional?: boolean };
  emptyDir?: object;
}
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  securityContext?: { runAsUser?: number; runAsNonRoot?: boolean };
  terminationGracePeriodSeconds?: number;
  affinity?: { podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[] } };
}
export interface StatefulSet extends Resource {
  spec: {
    serviceName: string;
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
    volumeClaimTemplates: { metadata: { name: string }; spec: { resources: { requests: { storage: string } } } }[];
  };
}
export interface Service extends Resource {
  spec: { clusterIP?: string; publishNotReadyAddresses?: boolean; selector: Record<string, string>; ports: { name: string; port: number; targetPort: string | number }[] };
}
export interface ConfigMap extends Resource {
  data: Record<string, string>;
}
export interface PodDisruptionBudget extends Resource {
  spec: { maxUnavailable?: number | string; minAvailable?: number | string; selector: { matchLabels: Record<string, string> } };
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}
export interface NetworkPolicy extends Resource {
  spec: {
    podSelector: LabelSelector;
    policyTypes?: string[];
    ingress?: {
      from?: { podSelector?: LabelSelector; namespaceSelector?: LabelSelector; ipBlock?: { cidr: string } }[];
      ports?: { port: string | number; protocol?: string }[];
    }[];
  };
}

export function configMap(resources: Resource[], name: string): ConfigMap {
  return only<ConfigMap>(resources, 'ConfigMap', (resource) => resource.metadata.name === name);
}

/**
 * A container's environment as the kubelet makes it: `envFrom` ConfigMaps first, then `env` in order, with
 * `$(NAME)` replaced by variables defined before it (an undefined one stays as written) and the pod's own fields.
 */
export function containerEnvironment(
  container: Container,
  resources: Resource[],
  pod: { name: string; namespace: string },
  secrets: Record<string, Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) throw new Error(`envFrom other than configMapRef is not emulated: ${JSON.stringify(source)}`);
    Object.assign(env, configMap(resources, source.configMapRef.name).data);
  }
  const fields: Record<string, string> = { 'metadata.name': pod.name, 'metadata.namespace': pod.namespace };
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) {
      env[variable.name] = variable.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (reference, name: string) => env[name] ?? reference);
    } else if (variable.valueFrom?.secretKeyRef) {
      const { name, key, optional } = variable.valueFrom.secretKeyRef;
      const value = secrets[name]?.[key];
      if (value === undefined && !optional) throw new Error(`env ${variable.name}: the pod needs key ${key} of the Secret ${name}`);
      if (value !== undefined) env[variable.name] = value;
    } else {
      const field = variable.valueFrom?.fieldRef?.fieldPath;
      if (field === undefined || fields[field] === undefined) throw new Error(`env ${variable.name}: only secretKeyRef and fieldRef ${Object.keys(fields).join(', ')} are emulated`);
      env[variable.name] = fields[field];
    }
  }
  return env;
}

/**
 * The pod's volumes as directories under `root`: ConfigMaps with their keys as files, the Secrets given in
 * `secrets` likewise (an optional one not given is an empty directory, as in a pod), emptyDirs and claims empty.
 */
export function materializeVolumes(statefulSet: StatefulSet, resources: Resource[], root: string, secrets: Record<string, Record<string, string>>): Map<string, string> {
  const directories = new Map<string, string>();
  const write = (dir: string, files: Record<string, string>) => {
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  };
  for (const volume of statefulSet.spec.template.spec.volumes ?? []) {
    const dir = path.join(root, volume.name);
    fs.mkdirSync(dir);
    directories.set(volume.name, dir);
    if (volume.configMap) write(dir, configMap(resources, volume.configMap.name).data);
    if (volume.secret) {
      const secret = secrets[volume.secret.secretName];
      if (secret === undefined && !volume.secret.optional) throw new Error(`the pod needs the Secret ${volume.secret.secretName}`);
      write(dir, secret ?? {});
    }
  }
  for (const claim of statefulSet.spec.volumeClaimTemplates) {
    const dir = path.join(root, claim.metadata.name);
    fs.mkdirSync(dir);
    directories.set(claim.metadata.name, dir);
  }
  return directories;
}

/** A container's path on this machine, through its volume mounts (the longest mount path that holds it wins). */
export function mountedPath(container: Container, volumes: Map<string, string>, podPath: string): string | undefined {
  const mounts = [...(container.volumeMounts ?? [])].sort((a, b) => b.mountPath.length - a.mountPath.length);
  for (const mount of mounts) {
    if (podPath === mount.mountPath || podPath.startsWith(`${mount.mountPath}/`)) {
      return path.join(volumes.get(mount.name)!, path.posix.relative(mount.mountPath, podPath));
    }
  }
  return undefined;
}
