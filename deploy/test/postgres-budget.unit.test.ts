import { describe, expect, it } from 'vitest';
import {
  base,
  baseDeployments,
  baseEnvironment,
  ofKind,
  type K8sObject,
} from './support/kustomize.ts';
import { deployReadme } from './support/repository.ts';
import { runtimeConfigOf } from './support/service-schemas.ts';

// Every pod has its own Postgres pool: their sum, surge pods included, must stay below
// what the server accepts (deploy/README.md, Postgres; dzpay-config's DATABASE_POOL_SIZE).

/** Postgres keeps superuser_reserved_connections (3) out of max_connections. */
const RESERVED = 3;

const autoscalers = ofKind(base.objects, 'HorizontalPodAutoscaler') as unknown as {
  spec: { scaleTargetRef: { name: string }; maxReplicas: number };
}[];

/** Connections of one Deployment's pods at `replicas`, with its surge pods rolling out. */
function connections(deployment: K8sObject, replicas: number): number {
  const name = deployment.metadata.name;
  const pool = runtimeConfigOf(name, baseEnvironment(deployment)).DATABASE_POOL_SIZE;
  const surge = deployment.spec?.strategy?.rollingUpdate?.maxSurge;
  expect(typeof surge, `${name}: maxSurge as a number of pods`).toBe('number');
  return (replicas + (surge as number)) * pool;
}

describe('deploy/base: Postgres connections', () => {
  it('stays below max_connections at the autoscalers ceilings, even while everything rolls out', () => {
    const maxConnections = Number(/max_connections: '(\d+)'/.exec(deployReadme())?.[1]);
    expect(maxConnections, 'max_connections in deploy/README.md').toBeGreaterThan(100);
    const total = baseDeployments.reduce((sum, deployment) => {
      const name = deployment.metadata.name;
      const ceiling =
        autoscalers.find((hpa) => hpa.spec.scaleTargetRef.name === name)?.spec.maxReplicas ??
        deployment.spec!.replicas!;
      return sum + connections(deployment, ceiling);
    }, 0);
    expect(total).toBeLessThan(maxConnections - RESERVED);
    // The README gives the count the Cluster is sized for.
    expect(deployReadme()).toContain(`needs ${total}`);
  });

  it("fits Postgres' default max_connections (100) at the base replicas, while everything rolls out", () => {
    const total = baseDeployments.reduce(
      (sum, deployment) => sum + connections(deployment, deployment.spec!.replicas!),
      0,
    );
    expect(total).toBeLessThanOrEqual(100 - RESERVED);
  });

  it("gives every service's pool and replicas in deploy/README.md's table, as deploy/base sets them", () => {
    const rows = new Map(
      [...deployReadme().matchAll(/^\| ([a-z-]+) +\| +(\d+) \| +(\d+) \|$/gm)].map((row) => [
        row[1]!,
        { pool: Number(row[2]), replicas: Number(row[3]) },
      ]),
    );
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const pool = runtimeConfigOf(name, baseEnvironment(deployment)).DATABASE_POOL_SIZE;
      expect(rows.get(name), `${name} in the table`).toEqual({
        pool,
        replicas: deployment.spec!.replicas!,
      });
    }
    expect(rows.size).toBe(baseDeployments.length);
  });
});
