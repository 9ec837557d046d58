import { describe, expect, it } from 'vitest';
import { expectListsItsFiles } from './support/checks.ts';
import {
  base,
  baseDeployments,
  baseEnvironment,
  baseImages,
  container,
  labelsOf,
  ofKind,
} from './support/kustomize.ts';
import { runtimeSchemas, SANDBOX } from './support/service-schemas.ts';

// deploy/base as a whole: its files, namespace, labels, images and Deployments.

const { kustomization, objects } = base;
const services = Object.keys(runtimeSchemas);

describe('deploy/base', () => {
  it('lists exactly the files of the base', () => {
    expectListsItsFiles(base);
  });

  it('puts everything in the dzpay namespace, labelled part of dzpay', () => {
    expect(kustomization!.namespace).toBe('dzpay');
    expect(ofKind(objects, 'Namespace').map((ns) => ns.metadata.name)).toEqual(['dzpay']);
    expect(labelsOf(kustomization!)['app.kubernetes.io/part-of']).toBe('dzpay');
  });

  it('runs two replicas of each service, from its own image named through kustomize', () => {
    const names = baseDeployments.map((d) => d.metadata.name).sort();
    expect(names).toEqual([...services].sort());
    for (const deployment of baseDeployments) {
      expect(deployment.spec?.replicas, deployment.metadata.name).toBe(2);
      expect(container(deployment).image).toBe(`dzpay/${deployment.metadata.name}`);
    }
    expect(baseImages.sort()).toEqual(
      [...services.map((name) => `dzpay/${name}`), 'dzpay/admin-cli'].sort(),
    );
  });

  it('never deploys the card network sandbox', () => {
    expect(baseImages).not.toContain(`dzpay/${SANDBOX}`);
    for (const resource of kustomization!.resources ?? []) {
      expect(resource, 'base resources').not.toMatch(/sandbox|overlays/);
    }
    for (const object of objects) {
      expect(object.metadata.name, `${object.kind} in the base`).not.toContain('sandbox');
    }
    for (const deployment of baseDeployments) {
      expect(container(deployment).image).not.toContain('sandbox');
      for (const value of Object.values(baseEnvironment(deployment))) {
        expect(value, `${deployment.metadata.name} points at the sandbox`).not.toContain(SANDBOX);
      }
    }
  });
});
