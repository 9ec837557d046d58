import { describe, expect, it } from 'vitest';
import { kubernetesProblems } from './support/k8s-schema.ts';
import { render } from './support/render.ts';

// Renders every overlay with kubectl's kustomize and holds each object to the Kubernetes
// API schemas, offline.

describe('the schema check itself', () => {
  it('refuses a wrong type, an unknown field and a removed API version', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: {
        replicas: '2',
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { containers: [{ name: 'x', image: 'x' }] },
        },
      },
    };
    expect((await kubernetesProblems(deployment)).join()).toContain('replicas must be integer');
    const misspelled = { ...deployment, spec: { ...deployment.spec, replicas: 2, replicaz: 2 } };
    expect((await kubernetesProblems(misspelled)).join()).toContain(
      '/spec/replicaz: unknown field',
    );
    expect(
      await kubernetesProblems({ apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget' }),
    ).toEqual(['policy/v1beta1 PodDisruptionBudget: not a served type']);
    expect(
      await kubernetesProblems({ ...deployment, spec: { ...deployment.spec, replicas: 2 } }),
    ).toEqual([]);
  });
});

describe.each(['base', 'overlays/dev', 'overlays/prod'])('deploy/%s', (overlay) => {
  it('renders, and every object passes the Kubernetes schemas (no unknown field)', async () => {
    const objects = await render(overlay);
    expect(objects.length).toBeGreaterThan(25);
    for (const object of objects) {
      const problems = await kubernetesProblems(object);
      expect(problems, `${object.kind}/${object.metadata.name}`).toEqual([]);
      if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe('dzpay');
    }
  });
});
