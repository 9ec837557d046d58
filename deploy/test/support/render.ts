import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { root } from './repository.ts';

// Renders a kustomize directory with kubectl's kustomize (kubectl 1.33, installed into
// .tools/ by scripts/setup.sh): what `kubectl apply -k` would send to a cluster.

const rootPath = fileURLToPath(root);
const kubectl = `${rootPath}.tools/kubectl`;

export interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

export interface RenderedPodSpec {
  containers: {
    image: string;
    command?: string[];
    env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
    volumeMounts?: { name: string; mountPath: string }[];
  }[];
  volumes?: { name: string; secret?: { secretName: string } }[];
}

const rendered = new Map<string, Promise<Rendered[]>>();

/** The objects of `deploy/<overlay>` (base, overlays/dev, overlays/prod), rendered once per file. */
export function render(overlay: string): Promise<Rendered[]> {
  let objects = rendered.get(overlay);
  if (!objects) {
    objects = promisify(execFile)(kubectl, ['kustomize', `${rootPath}deploy/${overlay}`], {
      maxBuffer: 16 * 1024 * 1024,
    }).then(({ stdout }) =>
      parseAllDocuments(stdout).map((document) => document.toJS() as Rendered),
    );
    rendered.set(overlay, objects);
  }
  return objects;
}

/** The sorted names of the objects of `kind`. */
export const namesOf = (objects: Rendered[], kind: string): string[] =>
  objects
    .filter((object) => object.kind === kind)
    .map((object) => object.metadata.name)
    .sort();

/** The pod template of a rendered Deployment or Job. */
export const podOf = (object: Rendered): RenderedPodSpec =>
  (object.spec as { template: { spec: RenderedPodSpec } }).template.spec;
