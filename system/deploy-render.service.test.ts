import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubernetesProblems } from './k8s-schema.ts';

// Renders every overlay with kubectl's kustomize (installed into .tools/ by
// scripts/setup.sh) and holds each object to the Kubernetes API schemas, offline.

const root = fileURLToPath(new URL('../', import.meta.url));
const kubectl = `${root}.tools/kubectl`;

interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

async function render(overlay: string): Promise<Rendered[]> {
  const { stdout } = await promisify(execFile)(kubectl, ['kustomize', `${root}deploy/${overlay}`], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return parseAllDocuments(stdout).map((document) => document.toJS() as Rendered);
}

interface PodSpec {
  containers: {
    env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
    volumeMounts?: { name: string; mountPath: string }[];
  }[];
  volumes?: { name: string; secret?: { secretName: string } }[];
}

const named = (objects: Rendered[], kind: string) =>
  objects
    .filter((object) => object.kind === kind)
    .map((object) => object.metadata.name)
    .sort();

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

describe('what the overlays deploy', () => {
  it('autoscales the gateway and the stream consumers, each Deployment it names existing', async () => {
    const objects = await render('overlays/prod');
    const deployments = named(objects, 'Deployment');
    const autoscalers = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    const targets = autoscalers.map((hpa) => (hpa.spec!.scaleTargetRef as { name: string }).name);
    expect(targets.sort()).toEqual(['gateway', 'qr-config', 'status', 'webhook-dispatcher']);
    for (const target of targets) expect(deployments).toContain(target);
    // One disruption budget per Deployment.
    expect(named(objects, 'PodDisruptionBudget')).toEqual(deployments);
  });

  it('opens only the gateway to the ingress, and the ops ports to monitoring', async () => {
    const objects = await render('overlays/prod');
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const denyAll = policies.find((p) => p.metadata.name === 'default-deny-ingress');
    expect(denyAll?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const fromIngress = policies.filter((p) =>
      JSON.stringify(p.spec).includes('"kubernetes.io/metadata.name":"ingress-nginx"'),
    );
    expect(fromIngress.map((p) => p.spec!.podSelector)).toEqual([
      { matchLabels: { 'app.kubernetes.io/name': 'gateway' } },
    ]);
    const ingress = objects.find((o) => o.kind === 'Ingress')!;
    const backends = JSON.stringify(ingress.spec).match(/"service":\{"name":"([^"]+)"/g);
    expect(new Set(backends)).toEqual(new Set(['"service":{"name":"gateway"']));
  });

  it('serves the two public hosts in production, with TLS', async () => {
    const ingress = (await render('overlays/prod')).find((o) => o.kind === 'Ingress')!;
    const spec = ingress.spec as { rules: { host: string }[]; tls: { hosts: string[] }[] };
    expect(spec.rules.map((rule) => rule.host)).toEqual(['partners.dzpay.dz', 'pay.dzpay.dz']);
    expect(spec.tls[0]!.hosts).toEqual(['partners.dzpay.dz', 'pay.dzpay.dz']);
  });

  it('runs the migration Job from the gateway image, and the sandbox only in dev', async () => {
    for (const overlay of ['base', 'overlays/prod', 'overlays/dev']) {
      const objects = await render(overlay);
      const job = objects.find((o) => o.kind === 'Job');
      expect(JSON.stringify(job?.spec)).toContain('"migrate"');
      expect(named(objects, 'Deployment').includes('cardnet-sandbox')).toBe(
        overlay === 'overlays/dev',
      );
    }
  });

  it('reaches NATS over TLS in production, each Deployment with the CA and its own user', async () => {
    const objects = await render('overlays/prod');
    const config = objects.find((o) => o.kind === 'ConfigMap')!.data!;
    expect(config.NATS_URL).toMatch(/^tls:\/\//);
    const caFile = config.NATS_TLS_CA_FILE!;
    expect(caFile).toMatch(/^\//);
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments.length).toBe(6);
    for (const deployment of deployments) {
      const pod = (deployment.spec as { template: { spec: PodSpec } }).template.spec;
      const [c] = pod.containers;
      const mount = c!.volumeMounts?.find((m) => caFile.startsWith(`${m.mountPath}/`));
      expect(mount, `${deployment.metadata.name}: the CA mounted`).toBeDefined();
      const volume = pod.volumes?.find((v) => v.name === mount!.name);
      expect(volume?.secret?.secretName, deployment.metadata.name).toBe('dzpay-nats-ca');
      const env = Object.fromEntries((c!.env ?? []).map((e) => [e.name, e]));
      expect(env.NATS_USER?.value).toBe(deployment.metadata.name);
      expect(env.NATS_PASSWORD?.valueFrom?.secretKeyRef?.name).toBe('dzpay-secrets');
    }
    // Development clusters keep the base's plain URL (their NATS has no certificate).
    const dev = (await render('overlays/dev')).find((o) => o.kind === 'ConfigMap')!.data!;
    expect(dev.NATS_URL).toMatch(/^nats:\/\//);
  });

  it('keeps three replicas of every stream in production only', async () => {
    const config = (objects: Rendered[]) => objects.find((o) => o.kind === 'ConfigMap')!.data!;
    expect(config(await render('overlays/prod')).STREAM_REPLICAS).toBe('3');
    expect(config(await render('overlays/dev')).STREAM_REPLICAS).toBeUndefined();
  });
});
