import { describe, expect, it } from 'vitest';
import { serviceFor } from './support/checks.ts';
import {
  base,
  baseDeployments,
  baseEnvironment,
  container,
  named,
  ofKind,
  portNumber,
  type K8sObject,
} from './support/kustomize.ts';
import { runtimeConfigOf } from './support/service-schemas.ts';

// A Service for each Deployment, and the Ingress: /dashboard to the dashboard, everything
// else to the gateway, on both public hosts.

interface IngressPath {
  path: string;
  pathType: string;
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface IngressSpec {
  tls: { hosts: string[]; secretName: string }[];
  rules: { host: string; http: { paths: IngressPath[] } }[];
}

const services = ofKind(base.objects, 'Service');
const ingress = named(base.objects, 'Ingress', 'dzpay') as unknown as { spec: IngressSpec };

/** The Deployments that serve HTTP to the ingress: those with a container port named http. */
const webDeployments = baseDeployments.filter(
  (d) => portNumber(container(d), 'http') !== undefined,
);

function servicePort(service: K8sObject, name: string) {
  return service.spec!.ports?.find((port) => port.name === name);
}

describe('deploy/base: Services and the Ingress', () => {
  it('selects each Deployment with a Service exposing its ops port, and its HTTP port on 80', () => {
    expect(webDeployments.map((d) => d.metadata.name).sort()).toEqual(['dashboard', 'gateway']);
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const service = serviceFor(deployment, services);
      const c = container(deployment);
      const ops = servicePort(service, 'ops');
      expect(ops, `${name}: Service port named ops`).toBeDefined();
      expect(portNumber(c, ops!.targetPort ?? ops!.port)).toBe(portNumber(c, 'ops'));
      if (!webDeployments.includes(deployment)) {
        expect(service.spec!.ports, `${name}: only the ops port`).toHaveLength(1);
        continue;
      }
      const http = servicePort(service, 'http');
      expect(http?.port, `${name}: Service port http`).toBe(80);
      const config = runtimeConfigOf(name, baseEnvironment(deployment));
      expect(portNumber(c, http?.targetPort ?? http?.port), name).toBe(config.HTTP_PORT);
    }
  });

  it('routes /dashboard to the dashboard and the rest to the gateway, on every host, with TLS', () => {
    const { rules, tls } = ingress.spec;
    expect(rules.map((rule) => rule.host)).toEqual(['partner.example.dz', 'pay.example.dz']);
    expect(tls[0]!.hosts).toEqual(rules.map((rule) => rule.host));
    for (const rule of rules) {
      const routes = Object.fromEntries(
        rule.http.paths.map((p) => [`${p.pathType} ${p.path}`, p.backend.service]),
      );
      expect(routes, rule.host).toEqual({
        'Prefix /dashboard': { name: 'dashboard', port: { name: 'http' } },
        'Prefix /': { name: 'gateway', port: { name: 'http' } },
      });
    }
  });

  it('sends the ingress only to Services with an http port, never to an ops port', () => {
    const backends = ingress.spec.rules.flatMap((rule) =>
      rule.http.paths.map((p) => p.backend.service),
    );
    for (const backend of backends) {
      const service = named(base.objects, 'Service', backend.name);
      expect(servicePort(service, backend.port.name!), backend.name).toBeDefined();
      expect(backend.port.name, backend.name).toBe('http');
    }
    expect(new Set(backends.map((b) => b.name))).toEqual(
      new Set(webDeployments.map((d) => d.metadata.name)),
    );
  });
});
