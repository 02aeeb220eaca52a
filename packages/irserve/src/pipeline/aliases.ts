import { IrserveError } from '../errors.js';
import type { SeqNode, StageNode } from './ast.js';
import { parsePipeline } from './parser.js';

/** Parsed `pipeline_aliases`: alias name to the body it stands for. */
export type AliasTable = ReadonlyMap<string, SeqNode>;

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Checks config `pipeline_aliases` (named sub-pipelines) once at start-up and returns them
 * parsed. Every problem is reported together in one ERR_CONFIG: a name that is not a DSL name,
 * a body that does not parse, an alias used as a merger or expander (aliases stand for stages),
 * a cycle, and a name that clashes with a service in `serviceNames`.
 *
 * @example validatePipelineAliases({ hybrid: '{bm25, dense}RRF%100' }, ['bm25', 'dense', 'RRF'])
 */
export function validatePipelineAliases(
  aliases: Readonly<Record<string, string>>,
  serviceNames: Iterable<string> = [],
): AliasTable {
  const problems: string[] = [];
  const table = new Map<string, SeqNode>();
  for (const [name, source] of Object.entries(aliases)) {
    if (!NAME.test(name)) {
      problems.push(`"${name}": an alias name is a letter followed by letters, digits, _ or -`);
      continue;
    }
    try {
      table.set(name, parsePipeline(source));
    } catch (error) {
      problems.push(`"${name}": ${(error as Error).message}`);
    }
  }
  const services = new Set(serviceNames);
  for (const name of table.keys()) {
    if (services.has(name))
      problems.push(`"${name}": a service has the same name; rename the alias`);
  }
  for (const [name, body] of table) problems.push(...misplacedAliases(name, body, table));
  const cycle = findCycle(table);
  if (cycle) problems.push(`aliases form a cycle: ${cycle.join(' -> ')}`);
  if (problems.length > 0) {
    throw new IrserveError('ERR_CONFIG', `pipeline_aliases: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  return table;
}

/** Alias names an alias body uses in stage or branch positions (where they expand). */
function stageReferences(stages: readonly StageNode[], table: AliasTable): string[] {
  const out: string[] = [];
  for (const stage of stages) {
    switch (stage.kind) {
      case 'call':
        if (table.has(stage.name)) out.push(stage.name);
        break;
      case 'group':
        for (const branch of stage.branches) out.push(...stageReferences(branch.stages, table));
        break;
    }
  }
  return out;
}

function misplacedAliases(name: string, body: SeqNode, table: AliasTable): string[] {
  const problems: string[] = [];
  const visit = (stages: readonly StageNode[]) => {
    for (const stage of stages) {
      if (stage.kind !== 'group') continue;
      for (const [role, call] of [
        ['merger', stage.merger],
        ['expander', stage.expander],
      ] as const) {
        if (call && table.has(call.name))
          problems.push(
            `"${name}": alias "${call.name}" cannot be ${role === 'merger' ? 'a' : 'an'} ${role}`,
          );
      }
      for (const branch of stage.branches) visit(branch.stages);
    }
  };
  visit(body.stages);
  return problems;
}

/** A cycle of aliases as a path (`a -> b -> a`), or undefined. */
function findCycle(table: AliasTable): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    if (done.has(name)) return undefined;
    path.push(name);
    const body = table.get(name);
    for (const next of body ? stageReferences(body.stages, table) : []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(name);
    return undefined;
  };
  for (const name of table.keys()) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return undefined;
}
