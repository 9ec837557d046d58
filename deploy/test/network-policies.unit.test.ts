import { describe, expect, it } from 'vitest';
import { base, baseDeployments, container, ofKind, portNumber } from './support/kustomize.ts';

// Nothing reaches a dzpay pod unless a policy lets it: the ingress controller the HTTP
// ports of the gateway and the dashboard, Prometheus every ops port.

interface Peer {
  namespaceSelector?: { matchLabels: Record<string, string> };
  podSelector?: { matchLabels: Record<string, string> };
}
interface Policy {
  metadata: { name: string };
  spec: {
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes: string[];
    ingress?: { from: Peer[]; ports: { protocol: string; port: string | number }[] }[];
    egress?: unknown[];
  };
}

const policies = ofKind(base.objects, 'NetworkPolicy') as unknown as Policy[];
const fromNamespace = (policy: Policy, namespace: string) =>
  (policy.spec.ingress ?? []).some((rule) =>
    rule.from.some(
      (peer) => peer.namespaceSelector?.matchLabels['kubernetes.io/metadata.name'] === namespace,
    ),
  );

describe('deploy/base: NetworkPolicies', () => {
  it('denies every ingress to every pod by default', () => {
    const denyAll = policies.find((p) => p.metadata.name === 'default-deny-ingress');
    expect(denyAll?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
  });

  it('opens only the HTTP ports of the gateway and the dashboard to the ingress controller', () => {
    const fromIngress = policies.filter((p) => fromNamespace(p, 'ingress-nginx'));
    const web = baseDeployments
      .filter((d) => portNumber(container(d), 'http') !== undefined)
      .map((d) => d.metadata.name);
    expect(
      fromIngress.map((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name']),
    ).toEqual(expect.arrayContaining(web));
    expect(fromIngress).toHaveLength(web.length);
    for (const policy of fromIngress) {
      expect(policy.spec.policyTypes, policy.metadata.name).toEqual(['Ingress']);
      const ports = policy.spec.ingress!.flatMap((rule) => rule.ports);
      expect(ports, policy.metadata.name).toEqual([{ protocol: 'TCP', port: 'http' }]);
    }
    expect(policies.map((p) => p.metadata.name)).toContain('dashboard-from-ingress');
  });

  it('opens every ops port, and only that, to Prometheus in the monitoring namespace', () => {
    const fromMonitoring = policies.filter((p) => fromNamespace(p, 'monitoring'));
    expect(fromMonitoring).toHaveLength(1);
    expect(fromMonitoring[0]!.spec.podSelector).toEqual({});
    const ports = fromMonitoring[0]!.spec.ingress!.flatMap((rule) => rule.ports);
    expect(ports).toEqual([{ protocol: 'TCP', port: 'ops' }]);
    for (const deployment of baseDeployments) {
      expect(portNumber(container(deployment), 'ops'), deployment.metadata.name).toBeDefined();
    }
  });
});
