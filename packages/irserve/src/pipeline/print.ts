import type { CallNode, GroupNode, PipelineNode, SeqNode } from './ast.js';

/**
 * The canonical DSL string of a node: ` >> ` between stages, `, ` between branches, no other
 * spaces. Parsing the result gives an equal node, so the string is a stable cache key.
 *
 * @example printPipeline(parsePipeline('{ a,b }RRF%10>>c')) // '{a, b}RRF%10 >> c'
 */
export function printPipeline(node: PipelineNode): string {
  switch (node.kind) {
    case 'call':
      return printCall(node);
    case 'group':
      return printGroup(node);
    case 'seq':
      return printSeq(node);
  }
}

function printCall(node: CallNode): string {
  let out = node.name;
  if (node.alias !== undefined) out += `[${node.alias}]`;
  if (node.view !== undefined) out += `@${node.view}`;
  if (node.limit !== undefined) out += `%${node.limit}`;
  return out;
}

function printGroup(node: GroupNode): string {
  const expander = node.expander ? printCall(node.expander) : '';
  return `${expander}{${node.branches.map(printSeq).join(', ')}}${printCall(node.merger)}`;
}

function printSeq(node: SeqNode): string {
  return node.stages.map((stage) => printPipeline(stage)).join(' >> ');
}
