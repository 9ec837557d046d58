import { Buckets, Rpc, Streams } from '@dzpay/contracts';
import { NATS_USERS, natsRoles, type NatsRole, type NatsUser } from '@dzpay/stack/nats-permissions';
import { describe, expect, it } from 'vitest';
import { readDoc, tablesStartingWith } from './markdown-tables.ts';

// docs/architecture.md's table of services against the NATS role table (the permissions
// each service's user gets): what the page says a service answers, asks, consumes,
// publishes, reads and writes is what its role lets it do, no more and no less.

type Verb = 'answers' | 'asks' | 'consumes' | 'publishes' | 'reads' | 'writes';
const VERBS: readonly Verb[] = ['answers', 'asks', 'consumes', 'publishes', 'reads', 'writes'];

/** What the role table says a service does, each as the names the page writes. */
function factsOf(role: NatsRole): Record<Verb, string[]> {
  return {
    answers: role.serves.map((name) => Rpc[name].subject),
    asks: role.calls.map((name) => Rpc[name].subject),
    consumes: [...new Set(role.consumes.map((consumer) => Streams[consumer.stream].name))],
    publishes: role.publishes.map((stream) => Streams[stream].name),
    reads: role.kvReads.map((bucket) => Buckets[bucket]),
    writes: role.kvWrites.map((bucket) => Buckets[bucket]),
  };
}

/** The page's clauses (`answers \`qr.*\``; …), each verb with the names it gives. */
function clausesOf(cell: string): Map<string, string[]> {
  const clauses = new Map<string, string[]>();
  for (const clause of cell.split(';').map((text) => text.trim())) {
    const verb = clause.split(/\s/)[0] ?? '';
    const names = [...clause.matchAll(/`([^`]+)`/g)].map(([, name = '']) => name);
    clauses.set(verb, names);
  }
  return clauses;
}

/** Whether a name of the page (`payments.*` or a subject) covers a subject. */
const covers = (name: string, subject: string) =>
  name.endsWith('.*') ? subject.startsWith(name.slice(0, -1)) : name === subject;

function rows(): Map<string, string> {
  const [table] = tablesStartingWith(readDoc('architecture.md'), 'service');
  expect(table, 'docs/architecture.md has a table whose first column is "service"').toBeDefined();
  const nats = table!.header.indexOf('NATS');
  expect(nats, 'the table of services has a "NATS" column').toBeGreaterThan(0);
  return new Map(table!.rows.map((cells) => [cells[0] ?? '', cells[nats] ?? '']));
}

const roles = natsRoles();
const services = NATS_USERS.filter((user): user is Exclude<NatsUser, 'cli'> => user !== 'cli');

describe("docs/architecture.md's table of services", () => {
  it('has a row for every service with a NATS user', () => {
    const missing = services.filter((service) => !rows().has(service));
    expect(missing).toEqual([]);
  });

  it.each(services)('says what %s does on NATS, as its role lets it', (service) => {
    const cell = rows().get(service) ?? '';
    const clauses = clausesOf(cell);
    const facts = factsOf(roles[service]);
    const wrong: string[] = [];
    for (const verb of clauses.keys()) {
      if (!VERBS.includes(verb as Verb)) wrong.push(`"${verb}" is none of ${VERBS.join(', ')}`);
    }
    for (const verb of VERBS) {
      const said = clauses.get(verb);
      const done = facts[verb];
      if (!said) {
        if (done.length > 0) wrong.push(`it ${verb} ${done.join(', ')}, unsaid`);
        continue;
      }
      if (done.length === 0) wrong.push(`it never ${verb}, yet the page says so`);
      // `asks` alone: a service asking many others, not listed one by one.
      if (verb === 'asks' && said.length === 0) continue;
      const uncovered = done.filter((name) => !said.some((s) => covers(s, name)));
      const idle = said.filter((s) => !done.some((name) => covers(s, name)));
      if (uncovered.length > 0) wrong.push(`it ${verb} ${uncovered.join(', ')}, unsaid`);
      if (idle.length > 0) wrong.push(`the page says it ${verb} ${idle.join(', ')}; it does not`);
    }
    expect(wrong, `${service}: ${cell}`).toEqual([]);
  });
});
