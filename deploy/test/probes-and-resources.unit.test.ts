import { describe, expect, it } from 'vitest';
import { expectRestricted } from './support/checks.ts';
import { baseDeployments, baseEnvironment, container, portNumber } from './support/kustomize.ts';
import { runtimeConfigOf } from './support/service-schemas.ts';

// Each pod is probed on its ops port, meets the restricted Pod Security level within
// limits, and leaves its graceful shutdown the time it needs.

const configOf = (name: string) =>
  runtimeConfigOf(name, baseEnvironment(baseDeployments.find((d) => d.metadata.name === name)!));

describe('deploy/base: probes and resources', () => {
  it('probes liveness on /healthz and readiness on /readyz of the ops port', () => {
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const c = container(deployment);
      const opsPort = configOf(name).OPS_PORT;
      expect(portNumber(c, 'ops'), `${name}: container port named ops`).toBe(opsPort);
      const probes = { livenessProbe: '/healthz', readinessProbe: '/readyz' } as const;
      for (const [probe, path] of Object.entries(probes)) {
        const httpGet = c[probe as keyof typeof probes]?.httpGet;
        expect(httpGet?.path, `${name}: ${probe}`).toBe(path);
        expect(portNumber(c, httpGet?.port), `${name}: ${probe} port`).toBe(opsPort);
      }
      if (c.startupProbe) {
        expect(portNumber(c, c.startupProbe.httpGet?.port), `${name}: startupProbe`).toBe(opsPort);
      }
    }
  });

  it('gives every service its own ops port, and an HTTP one to those that serve pages', () => {
    const ports = baseDeployments.map((d) => configOf(d.metadata.name).OPS_PORT);
    expect(new Set(ports).size, 'ops ports').toBe(ports.length);
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const http = portNumber(container(deployment), 'http');
      expect(http, `${name}: container port named http`).toBe(configOf(name).HTTP_PORT);
    }
  });

  it('runs as non-root on a read-only filesystem without capabilities, within limits', () => {
    for (const deployment of baseDeployments) expectRestricted(deployment);
  });

  it('leaves a graceful shutdown the time it needs', () => {
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const c = container(deployment);
      const grace = deployment.spec!.template!.spec.terminationGracePeriodSeconds;
      expect(grace, name).toBe(30);
      const preStop = c.lifecycle?.preStop;
      const pauseSeconds =
        preStop?.sleep?.seconds ??
        (preStop?.exec?.command[0] === 'sleep' ? Number(preStop.exec.command[1]) : 0);
      const shutdownMs = configOf(name).SHUTDOWN_TIMEOUT_MS;
      expect(pauseSeconds * 1_000 + shutdownMs, name).toBeLessThan(grace! * 1_000);
      // Behind the ingress, endpoints update a moment after SIGTERM: a pause covers it.
      if (portNumber(c, 'http') !== undefined) expect(pauseSeconds, name).toBeGreaterThan(0);
    }
  });
});
