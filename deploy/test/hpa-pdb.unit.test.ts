import { describe, expect, it } from 'vitest';
import { base, baseDeployments, ofKind } from './support/kustomize.ts';

// Availability: a PodDisruptionBudget for each Deployment, and autoscalers for the
// gateway, the dashboard and the stream consumers.

interface Autoscaler {
  metadata: { name: string };
  spec: {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicas: number;
    maxReplicas: number;
  };
}

const autoscalers = ofKind(base.objects, 'HorizontalPodAutoscaler') as unknown as Autoscaler[];

describe('deploy/base: disruption budgets and autoscalers', () => {
  it('gives each Deployment a PodDisruptionBudget that keeps one replica serving', () => {
    const budgets = ofKind(base.objects, 'PodDisruptionBudget');
    for (const deployment of baseDeployments) {
      const podLabels = deployment.spec!.template!.metadata.labels;
      const matching = budgets.filter((b) =>
        Object.entries(
          (b.spec?.selector?.matchLabels as Record<string, string> | undefined) ?? {},
        ).every(([key, value]) => podLabels[key] === value),
      );
      expect(matching, `${deployment.metadata.name}: PodDisruptionBudget`).toHaveLength(1);
      const { maxUnavailable } = matching[0]!.spec as { maxUnavailable?: number };
      expect(maxUnavailable, deployment.metadata.name).toBeLessThan(deployment.spec!.replicas!);
    }
    expect(budgets).toHaveLength(baseDeployments.length);
  });

  it('autoscales the gateway, the dashboard and the stream consumers, from their replica count', () => {
    expect(autoscalers.map((hpa) => hpa.spec.scaleTargetRef.name).sort()).toEqual([
      'dashboard',
      'gateway',
      'qr-config',
      'status',
      'webhook-dispatcher',
    ]);
    for (const hpa of autoscalers) {
      const { scaleTargetRef, minReplicas, maxReplicas } = hpa.spec;
      expect(hpa.metadata.name).toBe(scaleTargetRef.name);
      expect(scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      const deployment = baseDeployments.find((d) => d.metadata.name === scaleTargetRef.name);
      expect(deployment, `${hpa.metadata.name}: its Deployment`).toBeDefined();
      expect(minReplicas, hpa.metadata.name).toBe(deployment!.spec!.replicas);
      expect(maxReplicas, hpa.metadata.name).toBeGreaterThan(minReplicas);
    }
  });
});
