import { describe, expect, it } from 'vitest';
import { expectListsItsFiles, expectNoLiteralSecrets } from './support/checks.ts';
import {
  base,
  baseEnvironment,
  baseImages,
  named,
  patchedEnvironment,
  readKustomizeDir,
} from './support/kustomize.ts';
import { keysOf, parseEnv, runtimeConfigOf, schemaOf } from './support/service-schemas.ts';

// deploy/overlays/prod: the base with the release's images and the environment's public
// addresses (deploy/test/render-overlays.service.test.ts checks what it renders).

const prod = readKustomizeDir('deploy/overlays/prod/');
const { kustomization } = prod;

describe('deploy/overlays/prod', () => {
  it('builds on the base, never on the dev overlay, and lists exactly its files', () => {
    expectListsItsFiles(prod);
    expect(kustomization!.resources).toEqual(['../../base']);
    expect(kustomization!.namespace).toBe('dzpay');
    expectNoLiteralSecrets(prod.patches);
  });

  it("pins every image the base names, the admin CLI's included, in the release's registry", () => {
    const images = kustomization!.images ?? [];
    expect(images.map((image) => image.name).sort()).toEqual([...baseImages].sort());
    for (const image of images) {
      expect(image.newName, image.name).toMatch(new RegExp(`/${image.name}$`));
      expect(image.digest ?? image.newTag, image.name).toBeDefined();
    }
  });

  it('sets the one public URL on the gateway, payments and the dashboard, behind one proxy', () => {
    const placeholder = baseEnvironment(
      named(base.objects, 'Deployment', 'gateway'),
    ).PUBLIC_BASE_URL;
    const urls = ['gateway', 'payments', 'dashboard'].map((name) => {
      const env = patchedEnvironment(prod, name);
      for (const key of Object.keys(env))
        expect(keysOf(schemaOf(name)), `${name}: ${key}`).toContain(key);
      parseEnv(schemaOf(name), env);
      return runtimeConfigOf(name, env).PUBLIC_BASE_URL;
    });
    expect(new Set(urls)).toEqual(new Set(['https://pay.dzpay.dz']));
    expect(urls[0]).not.toBe(placeholder);
    // Client addresses (rate limits, sign-in throttles) come from the ingress controller.
    for (const name of ['gateway', 'dashboard']) {
      expect(patchedEnvironment(prod, name).TRUST_PROXY_HOPS, name).toBe('1');
    }
  });
});
