import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectNoLiteralSecrets, expectRestricted } from './support/checks.ts';
import {
  base,
  baseConfigMaps,
  baseImages,
  container,
  environmentOf,
  named,
  readKustomizeDir,
} from './support/kustomize.ts';
import { deployReadme, exists, fileUrl, readText } from './support/repository.ts';

// The migration Job runs the admin CLI's `migrate` from its own image, which carries every
// service's migrations (deploy/test/dockerfile.unit.test.ts keeps them in the context).

const job = named(base.objects, 'Job', 'dzpay-migrate');
const prod = readKustomizeDir('deploy/overlays/prod/');

/** The admin CLI's sources, where its commands are declared. */
const cliSources = () =>
  readdirSync(fileUrl('tools/admin-cli/src/'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readText(`tools/admin-cli/src/${file}`))
    .join('\n');

describe('deploy/base: the migration Job', () => {
  it("runs `migrate` of the admin CLI, from the admin CLI's image", () => {
    const c = container(job);
    expect(c.image).toBe('dzpay/admin-cli');
    expect(baseImages, 'named through kustomize').toContain('dzpay/admin-cli');
    const [node, entry, ...args] = c.command ?? [];
    expect(node).toBe('node');
    expect(entry).toBe('tools/admin-cli/src/main.ts');
    expect(args).toEqual(['migrate']);
    expect(exists(entry!), entry).toBe(true);
    // The Dockerfile builds that image with APP=tools/admin-cli and runs it from /app.
    expect(readText('Dockerfile')).toMatch(/^WORKDIR \/app$/m);
    expect(cliSources(), 'a migrate command').toMatch(/\.command\(\s*'migrate'/);
  });

  it('reads only DATABASE_URL from dzpay-secrets, and meets the restricted level within limits', () => {
    const env = environmentOf(job, baseConfigMaps, { optionalSecrets: false });
    expect(env.DATABASE_URL).toMatch(/^postgres(ql)?:\/\//);
    const secrets = (container(job).env ?? []).flatMap((e) => e.valueFrom?.secretKeyRef ?? []);
    expect(secrets).toEqual([{ name: 'dzpay-secrets', key: 'DATABASE_URL' }]);
    expectNoLiteralSecrets([job]);
    expectRestricted(job);
    const pod = job.spec!.template!.spec as { restartPolicy?: string };
    expect(pod.restartPolicy).toBe('OnFailure');
  });

  it('is pinned by the production overlay and documented', () => {
    const images = prod.kustomization?.images ?? [];
    expect(images.find((image) => image.name === 'dzpay/admin-cli')?.newName).toMatch(
      /\/dzpay\/admin-cli$/,
    );
    const readme = deployReadme();
    expect(readme).toContain('APP=tools/admin-cli');
    expect(readme).toContain('dzpay/admin-cli');
  });
});
