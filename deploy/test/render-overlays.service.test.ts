import { describe, expect, it } from 'vitest';
import { namesOf, podOf, render, type Rendered } from './support/render.ts';

// What `kubectl apply -k` sends for each overlay, rendered by kubectl's kustomize: the
// patches and image pins applied, which reading the files alone cannot show.

const overlays = ['base', 'overlays/dev', 'overlays/prod'];

describe('what the overlays deploy', () => {
  it('autoscales the gateway, the dashboard and the stream consumers, each Deployment it names existing', async () => {
    const objects = await render('overlays/prod');
    const deployments = namesOf(objects, 'Deployment');
    const autoscalers = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    const targets = autoscalers.map((hpa) => (hpa.spec!.scaleTargetRef as { name: string }).name);
    expect(targets.sort()).toEqual([
      'dashboard',
      'gateway',
      'qr-config',
      'status',
      'webhook-dispatcher',
    ]);
    for (const target of targets) expect(deployments).toContain(target);
    // One disruption budget per Deployment.
    expect(namesOf(objects, 'PodDisruptionBudget')).toEqual(deployments);
  });

  it('opens only the gateway and the dashboard to the ingress, and the ops ports to monitoring', async () => {
    const objects = await render('overlays/prod');
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const denyAll = policies.find((p) => p.metadata.name === 'default-deny-ingress');
    expect(denyAll?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const fromIngress = policies.filter((p) =>
      JSON.stringify(p.spec).includes('"kubernetes.io/metadata.name":"ingress-nginx"'),
    );
    const opened = fromIngress.map(
      (p) => (p.spec!.podSelector as { matchLabels: Record<string, string> }).matchLabels,
    );
    expect(opened.map((labels) => labels['app.kubernetes.io/name']).sort()).toEqual([
      'dashboard',
      'gateway',
    ]);
    expect(opened.every((labels) => Object.keys(labels).length === 1)).toBe(true);
    const ingress = objects.find((o) => o.kind === 'Ingress')!;
    const backends = JSON.stringify(ingress.spec).match(/"service":\{"name":"([^"]+)"/g);
    expect(new Set(backends)).toEqual(
      new Set(['"service":{"name":"gateway"', '"service":{"name":"dashboard"']),
    );
  });

  it('serves the two public hosts in production, with TLS, /dashboard on each', async () => {
    const ingress = (await render('overlays/prod')).find((o) => o.kind === 'Ingress')!;
    const spec = ingress.spec as {
      rules: { host: string; http: { paths: { path: string; backend: unknown }[] } }[];
      tls: { hosts: string[] }[];
    };
    expect(spec.rules.map((rule) => rule.host)).toEqual(['partners.dzpay.dz', 'pay.dzpay.dz']);
    expect(spec.tls[0]!.hosts).toEqual(['partners.dzpay.dz', 'pay.dzpay.dz']);
    for (const rule of spec.rules) {
      const dashboard = rule.http.paths.find((p) => p.path === '/dashboard');
      expect(dashboard?.backend, rule.host).toEqual({
        service: { name: 'dashboard', port: { name: 'http' } },
      });
    }
  });

  it("runs the migration Job from the admin CLI's image, and the sandbox only in dev", async () => {
    for (const overlay of overlays) {
      const objects = await render(overlay);
      const jobs = objects.filter((o) => o.kind === 'Job');
      expect(jobs, overlay).toHaveLength(1);
      const [c] = podOf(jobs[0]!).containers;
      expect(c!.command, overlay).toEqual(['node', 'tools/admin-cli/src/main.ts', 'migrate']);
      const image =
        overlay === 'overlays/prod'
          ? 'registry.dzpay.dz/dzpay/admin-cli:1.0.0'
          : 'dzpay/admin-cli:0.1.0';
      expect(c!.image, overlay).toBe(image);
      expect(namesOf(objects, 'Deployment').includes('cardnet-sandbox')).toBe(
        overlay === 'overlays/dev',
      );
    }
  });

  it('runs each Deployment from its own image, pinned in production', async () => {
    for (const overlay of overlays) {
      for (const deployment of (await render(overlay)).filter((o) => o.kind === 'Deployment')) {
        const [c] = podOf(deployment).containers;
        const name = deployment.metadata.name;
        const registry = overlay === 'overlays/prod' ? 'registry.dzpay.dz/' : '';
        const tag = overlay === 'overlays/prod' ? '1.0.0' : '0.1.0';
        expect(c!.image, `${overlay}: ${name}`).toBe(`${registry}dzpay/${name}:${tag}`);
      }
    }
  });

  it('reaches NATS over TLS in production, each Deployment with the CA and its own user', async () => {
    const objects = await render('overlays/prod');
    const config = objects.find((o) => o.kind === 'ConfigMap')!.data!;
    expect(config.NATS_URL).toMatch(/^tls:\/\//);
    const caFile = config.NATS_TLS_CA_FILE!;
    expect(caFile).toMatch(/^\//);
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments.length).toBe(7);
    for (const deployment of deployments) {
      const pod = podOf(deployment);
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
