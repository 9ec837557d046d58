import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { fileUrl } from './repository.ts';
import { secretSamples } from './service-schemas.ts';

// The kustomize directories under deploy/, read as files (no cluster, no kubectl): their
// kustomization, their objects, and the environment each container starts with.

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
  resources?: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodSpec {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
  containers: Container[];
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string } };
    /** A Deployment's holds matchLabels; a Service's is the labels themselves. */
    selector?: Record<string, unknown>;
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
export interface Kustomization {
  namespace?: string;
  resources?: string[];
  patches?: { path?: string; patch?: string; target?: unknown }[];
  commonLabels?: Record<string, string>;
  labels?: { pairs: Record<string, string> }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}

/** A kustomize directory read as files: its kustomization and the objects of its YAML. */
export interface KustomizeDir {
  dir: URL;
  files: string[];
  kustomizationFile: string | undefined;
  kustomization: Kustomization | undefined;
  /** Objects of the files listed in resources; patches are not objects. */
  objects: K8sObject[];
  patchFiles: string[];
  /** The objects of the patch files (strategic merge patches). */
  patches: K8sObject[];
}

function parseObjects(url: URL, file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(url, 'utf8'))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.join('; ')}`);
      return doc.toJS() as K8sObject;
    })
    .filter((object) => object !== null);
}

/** Reads `path` (deploy/base/, deploy/overlays/dev/, …). */
export function readKustomizeDir(path: string): KustomizeDir {
  const dir = fileUrl(path);
  const files = readdirSync(dir).filter((file) => /\.ya?ml$/.test(file));
  const kustomizationFile = files.find((file) => /^kustomization\.ya?ml$/.test(file));
  const kustomization = existsSync(new URL(kustomizationFile ?? 'missing', dir))
    ? (parse(readFileSync(new URL(kustomizationFile!, dir), 'utf8')) as Kustomization)
    : undefined;
  const patchFiles = (kustomization?.patches ?? []).flatMap((patch) => patch.path ?? []);
  const objectsOf = (names: string[]) =>
    names.flatMap((file) => parseObjects(new URL(file, dir), file));
  return {
    dir,
    files,
    kustomizationFile,
    kustomization,
    objects: objectsOf(files.filter((f) => f !== kustomizationFile && !patchFiles.includes(f))),
    patchFiles,
    patches: objectsOf(patchFiles),
  };
}

export function labelsOf(kustomization: Kustomization): Record<string, string> {
  const labels: Record<string, string> = { ...kustomization.commonLabels };
  for (const entry of kustomization.labels ?? []) Object.assign(labels, entry.pairs);
  return labels;
}

export function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind);
}

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind}/${name}`).toBeDefined();
  return found!;
}

/** The one container of a Deployment or Job. */
export function container(object: K8sObject): Container {
  const containers = object.spec?.template?.spec.containers ?? [];
  expect(containers, object.metadata.name).toHaveLength(1);
  return containers[0]!;
}

export function portNumber(c: Container, port: string | number | undefined): number | undefined {
  return typeof port === 'number'
    ? port
    : c.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

/**
 * The environment a container starts with, secrets replaced by sample values. Without
 * optional secrets, it is the environment of a dzpay-secrets holding only the required
 * keys.
 */
export function environmentOf(
  object: K8sObject,
  configMaps: Map<string, Record<string, string>>,
  options: { optionalSecrets?: boolean } = {},
): Record<string, string> {
  const c = container(object);
  const env: Record<string, string> = {};
  for (const source of c.envFrom ?? []) {
    const name = source.configMapRef?.name;
    expect(name, `${object.metadata.name}: envFrom a ConfigMap of the base`).toBeDefined();
    const data = configMaps.get(name!);
    expect(data, `ConfigMap ${name}`).toBeDefined();
    Object.assign(env, data);
  }
  for (const entry of c.env ?? []) {
    const secret = entry.valueFrom?.secretKeyRef;
    if (secret) {
      expect(secret.name, entry.name).toBe('dzpay-secrets');
      expect(secretSamples[secret.key], `sample for ${secret.key}`).toBeDefined();
      if (secret.optional && options.optionalSecrets === false) continue;
      env[entry.name] = secretSamples[secret.key]!;
    } else {
      expect(entry.value, entry.name).toBeTypeOf('string');
      env[entry.name] = entry.value!;
    }
  }
  return env;
}

/** A base Deployment's environment after an overlay's strategic-merge patches of it. */
export function patchedEnvironment(overlay: KustomizeDir, name: string): Record<string, string> {
  const deployment = named(base.objects, 'Deployment', name);
  const env = environmentOf(deployment, baseConfigMaps);
  for (const patch of overlay.patches) {
    if (patch.kind !== 'Deployment' || patch.metadata.name !== name) continue;
    for (const patched of patch.spec?.template?.spec.containers ?? []) {
      expect(patched.name, `patch of ${name}`).toBe(container(deployment).name);
      for (const entry of patched.env ?? []) {
        expect(entry.value, `${name}: ${entry.name}`).toBeTypeOf('string');
        env[entry.name] = entry.value!;
      }
    }
  }
  return env;
}

export const base = readKustomizeDir('deploy/base/');
export const baseDeployments = ofKind(base.objects, 'Deployment');
export const baseConfigMaps = new Map(
  ofKind(base.objects, 'ConfigMap').map((cm) => [cm.metadata.name, cm.data ?? {}]),
);
export const baseImages = (base.kustomization?.images ?? []).map((image) => image.name);

/** A base Deployment's environment (with optional secrets unless told otherwise). */
export function baseEnvironment(
  deployment: K8sObject,
  options?: { optionalSecrets?: boolean },
): Record<string, string> {
  return environmentOf(deployment, baseConfigMaps, options);
}
