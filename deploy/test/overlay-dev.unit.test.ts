import { describe, expect, it } from 'vitest';
import { GatewayEnv } from '../../services/gateway/src/config.ts';
import { PaymentsEnv } from '../../services/payments/src/config.ts';
import { SandboxEnv } from '../../services/cardnet-sandbox/src/config.ts';
import {
  expectListsItsFiles,
  expectNoLiteralSecrets,
  expectRestricted,
  serviceFor,
} from './support/checks.ts';
import {
  base,
  baseEnvironment,
  container,
  environmentOf,
  labelsOf,
  named,
  ofKind,
  patchedEnvironment,
  portNumber,
  readKustomizeDir,
} from './support/kustomize.ts';
import { exists } from './support/repository.ts';
import { keysOf, parseEnv, runtimeConfigOf, SANDBOX, schemaOf } from './support/service-schemas.ts';

// deploy/overlays/dev: the base plus the card network sandbox, for development clusters.

const dev = readKustomizeDir('deploy/overlays/dev/');
const { kustomization, objects } = dev;
const sandboxDeployment = ofKind(objects, 'Deployment').find((d) => d.metadata.name === SANDBOX);

describe('deploy/overlays/dev', () => {
  it('builds on the base and lists exactly its files', () => {
    expectListsItsFiles(dev);
    expect(kustomization!.resources).toContain('../../base');
    for (const file of [`${SANDBOX}-deployment.yaml`, `${SANDBOX}-service.yaml`]) {
      expect(exists(`deploy/overlays/dev/${file}`), file).toBe(true);
      expect(kustomization!.resources, file).toContain(file);
    }
  });

  it("adds only the sandbox (and payments' way to it), in the dzpay namespace, labelled part of dzpay", () => {
    expect(kustomization!.namespace).toBe('dzpay');
    expect(labelsOf(kustomization!)['app.kubernetes.io/part-of']).toBe('dzpay');
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      `Deployment/${SANDBOX}`,
      `NetworkPolicy/${SANDBOX}-from-payments`,
      `Service/${SANDBOX}`,
    ]);
    expect(ofKind(objects, 'Secret')).toEqual([]);
    expectNoLiteralSecrets([...objects, ...dev.patches]);
  });

  it('names the sandbox image through kustomize', () => {
    const images = (kustomization!.images ?? []).map((image) => image.name);
    expect(images).toContain(`dzpay/${SANDBOX}`);
    expect(container(sandboxDeployment!).image).toBe(`dzpay/${SANDBOX}`);
  });

  it('runs one sandbox, with only the variables it reads, probed on /healthz', () => {
    expect(sandboxDeployment, 'sandbox Deployment').toBeDefined();
    expect(sandboxDeployment!.spec?.replicas, 'orders are in memory').toBe(1);
    const c = container(sandboxDeployment!);
    expect(c.envFrom ?? [], 'no shared ConfigMap: the sandbox reads none of it').toEqual([]);
    const env = environmentOf(sandboxDeployment!, new Map());
    for (const key of Object.keys(env)) expect(keysOf(SandboxEnv), key).toContain(key);
    const config = parseEnv(SandboxEnv, env);
    expect(config.SANDBOX_PUBLIC_URL, 'SANDBOX_PUBLIC_URL').toBeDefined();
    expect(portNumber(c, 'http'), 'container port named http').toBe(config.SANDBOX_PORT);
    for (const probe of ['livenessProbe', 'readinessProbe'] as const) {
      expect(c[probe]?.httpGet?.path, probe).toBe('/healthz');
      expect(portNumber(c, c[probe]?.httpGet?.port), probe).toBe(config.SANDBOX_PORT);
    }
    expectRestricted(sandboxDeployment!);
    expect(sandboxDeployment!.spec!.template!.spec.terminationGracePeriodSeconds).toBe(30);
  });

  it('patches only variables the services read', () => {
    for (const patch of dev.patches) {
      expect(patch.kind, patch.metadata.name).toBe('Deployment');
      const env = patchedEnvironment(dev, patch.metadata.name);
      const schema = schemaOf(patch.metadata.name);
      for (const key of Object.keys(env)) {
        expect(keysOf(schema), `${patch.metadata.name}: ${key}`).toContain(key);
      }
      parseEnv(schema, env);
    }
  });

  it('points payments test keys at the sandbox Service and every public URL at the port-forward', () => {
    const service = serviceFor(sandboxDeployment!, ofKind(objects, 'Service'));
    expect(service.metadata.name).toBe(SANDBOX);
    const c = container(sandboxDeployment!);
    const http = service.spec!.ports?.find((port) => port.name === 'http');
    expect(http, 'Service port named http').toBeDefined();
    expect(portNumber(c, http!.targetPort ?? http!.port)).toBe(portNumber(c, 'http'));

    const payments = PaymentsEnv.parse(patchedEnvironment(dev, 'payments'));
    const testUrl = new URL(payments.CARDNET_TEST_URL);
    const [host, namespace] = testUrl.hostname.split('.');
    expect(host, 'CARDNET_TEST_URL host').toBe(service.metadata.name);
    if (namespace !== undefined) expect(namespace).toBe(kustomization!.namespace);
    expect(Number(testUrl.port || 80), 'CARDNET_TEST_URL port').toBe(http!.port);
    const sandboxConfig = SandboxEnv.parse(environmentOf(sandboxDeployment!, new Map()));
    expect(payments.CARDNET_TEST_USERNAME).toBe(sandboxConfig.SANDBOX_USERNAME);
    expect(payments.CARDNET_TEST_PASSWORD).toBe(sandboxConfig.SANDBOX_PASSWORD);

    const gateway = GatewayEnv.parse(patchedEnvironment(dev, 'gateway'));
    const placeholder = baseEnvironment(
      named(base.objects, 'Deployment', 'gateway'),
    ).PUBLIC_BASE_URL;
    expect(gateway.PUBLIC_BASE_URL, 'the base placeholder is replaced').not.toBe(placeholder);
    expect(payments.PUBLIC_BASE_URL).toBe(gateway.PUBLIC_BASE_URL);
    const dashboard = runtimeConfigOf('dashboard', patchedEnvironment(dev, 'dashboard'));
    expect(dashboard.PUBLIC_BASE_URL, 'QR codes lead to the gateway').toBe(gateway.PUBLIC_BASE_URL);
  });
});
