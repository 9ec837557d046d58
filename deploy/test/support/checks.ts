import { readdirSync, statSync } from 'node:fs';
import { expect } from 'vitest';
import { container, type K8sObject, type KustomizeDir } from './kustomize.ts';
import { credentialPattern, secretSamples } from './service-schemas.ts';

// Expectations several manifest tests share.

/** Checks a Deployment or Job meets the namespace's restricted Pod Security level, with limits. */
export function expectRestricted(object: K8sObject): void {
  const name = object.metadata.name;
  const pod = object.spec!.template!.spec;
  const c = container(object);
  expect(c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, name).toBe(true);
  expect(c.securityContext?.readOnlyRootFilesystem, name).toBe(true);
  expect(c.securityContext?.allowPrivilegeEscalation, name).toBe(false);
  expect(c.securityContext?.capabilities?.drop, name).toContain('ALL');
  expect(c.resources?.requests?.cpu, name).toBeDefined();
  expect(c.resources?.requests?.memory, name).toBeDefined();
  expect(c.resources?.limits?.cpu, name).toBeDefined();
  expect(c.resources?.limits?.memory, name).toBeDefined();
}

/**
 * Checks that secrets reach containers only through secretKeyRef: no env entry or
 * ConfigMap holds a dzpay-secrets key as a literal value, whatever its name.
 */
export function expectNoLiteralSecrets(objects: K8sObject[]): void {
  for (const object of objects) {
    for (const c of object.spec?.template?.spec.containers ?? []) {
      for (const entry of c.env ?? []) {
        if (!(entry.name in secretSamples) && !credentialPattern.test(entry.name)) continue;
        expect(entry.value, `${object.metadata.name}: ${entry.name} in plain text`).toBeUndefined();
        expect(entry.valueFrom?.secretKeyRef?.name, `${object.metadata.name}: ${entry.name}`).toBe(
          'dzpay-secrets',
        );
      }
    }
    if (object.kind === 'ConfigMap') {
      for (const key of Object.keys(object.data ?? {})) {
        expect(secretSamples, `ConfigMap ${object.metadata.name}: ${key}`).not.toHaveProperty(key);
      }
    }
  }
}

/** The Service whose selector picks the Deployment's pods, checked against the selector. */
export function serviceFor(deployment: K8sObject, services: K8sObject[]): K8sObject {
  const name = deployment.metadata.name;
  const podLabels = deployment.spec!.template!.metadata.labels;
  const matchLabels = deployment.spec!.selector!.matchLabels as Record<string, string>;
  expect(Object.keys(matchLabels), `${name}: selector`).not.toHaveLength(0);
  for (const [key, value] of Object.entries(matchLabels)) {
    expect(podLabels[key], `${name}: selector ${key}`).toBe(value);
  }
  const service = services.find((s) =>
    Object.entries(s.spec!.selector ?? {}).every(([key, value]) => podLabels[key] === value),
  );
  expect(service, `${name}: Service`).toBeDefined();
  return service!;
}

/** Checks that a kustomization lists every YAML file of its directory, and that they exist. */
export function expectListsItsFiles(k: KustomizeDir): void {
  expect(k.kustomization, 'kustomization.yaml').toBeDefined();
  const resources = k.kustomization!.resources ?? [];
  for (const resource of [...resources, ...k.patchFiles]) {
    const url = new URL(resource, k.dir);
    expect(statSync(url, { throwIfNoEntry: false }), resource).toBeDefined();
    if (statSync(url).isDirectory()) {
      expect(readdirSync(url).some((file) => /^kustomization\.ya?ml$/.test(file))).toBe(true);
    }
  }
  const unlisted = k.files.filter(
    (file) =>
      file !== k.kustomizationFile && !resources.includes(file) && !k.patchFiles.includes(file),
  );
  expect(unlisted, 'YAML files that kustomize would silently skip').toEqual([]);
}
