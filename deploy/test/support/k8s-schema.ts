import * as k8s from '@kubernetes/client-node';

// Offline validation of Kubernetes objects, in two layers:
//  1. the API schema (types, required fields, enums, formats): kubernetes-models'
//     validators, generated from the Kubernetes OpenAPI document;
//  2. unknown fields and removed API versions: the attribute maps of
//     @kubernetes/client-node's models, which hold only types a current API serves.

interface Attribute {
  baseName: string;
  type: string;
}
const models = k8s as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>;

function unknownFields(value: unknown, type: string, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const list = /^Array<(.+)>$/.exec(type);
  if (list) {
    if (Array.isArray(value))
      value.forEach((v, i) => unknownFields(v, list[1]!, `${path}/${i}`, out));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === 'object') {
      for (const [key, v] of Object.entries(value))
        unknownFields(v, map[1]!, `${path}/${key}`, out);
    }
    return;
  }
  const attributes = models[type]?.attributeTypeMap;
  // Scalars, IntOrString and free-form objects have no attribute map.
  if (!attributes || typeof value !== 'object' || Array.isArray(value)) return;
  const known = new Map(attributes.map((attribute) => [attribute.baseName, attribute.type]));
  for (const [key, v] of Object.entries(value)) {
    const field = known.get(key);
    if (field === undefined) out.push(`${path}/${key}: unknown field (not in ${type})`);
    else unknownFields(v, field, `${path}/${key}`, out);
  }
}

/** What is wrong with one object against the Kubernetes API; empty when nothing is. */
export async function kubernetesProblems(object: object): Promise<string[]> {
  const { apiVersion = '', kind = '' } = object as { apiVersion?: string; kind?: string };
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!version || !kind) return ['missing apiVersion or kind'];
  const typeName = `${version[0]!.toUpperCase()}${version.slice(1)}${kind}`;
  if (!models[typeName]?.attributeTypeMap) return [`${apiVersion} ${kind}: not a served type`];
  let model: Record<string, new (o: object) => { validate(): void }>;
  try {
    model = (await import(
      `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`
    )) as typeof model;
  } catch {
    return [`${apiVersion} ${kind}: no model`];
  }
  const problems: string[] = [];
  try {
    new model[kind]!(object).validate();
  } catch (error) {
    problems.push(...(error as Error).message.split(', '));
  }
  unknownFields(object, typeName, '', problems);
  return problems;
}
