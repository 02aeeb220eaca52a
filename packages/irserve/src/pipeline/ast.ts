/**
 * The pipeline AST: plain, frozen objects with a `kind` discriminant. It prints back to the
 * canonical DSL string (`print.ts`) and compares structurally (`equalNodes`).
 *
 * Grammar (whitespace ignored):
 *   seq   := stage (">>" stage)*
 *   stage := call | group
 *   group := call? "{" seq ("," seq)* "}" call
 *   call  := NAME ("[" ALIAS "]")? ("@" VIEW)? ("%" INT)?
 */

/** A service call: `name[alias]@view%limit`. */
export interface CallNode {
  readonly kind: 'call';
  readonly name: string;
  /** The stage label (`[alias]`) that `runtime_kwargs` keys refer to. */
  readonly alias?: string;
  /** The collection view a rerank stage reads (`@view`). */
  readonly view?: string;
  /** `%N`. */
  readonly limit?: number;
}

/** A parallel group: `expander{branch, branch, ...}merger`. */
export interface GroupNode {
  readonly kind: 'group';
  readonly expander?: CallNode;
  readonly branches: readonly SeqNode[];
  readonly merger: CallNode;
}

export type StageNode = CallNode | GroupNode;

/** Stages joined by `>>`; the root of every pipeline. */
export interface SeqNode {
  readonly kind: 'seq';
  readonly stages: readonly StageNode[];
}

export type PipelineNode = SeqNode | StageNode;

export interface CallModifiers {
  alias?: string | undefined;
  view?: string | undefined;
  limit?: number | undefined;
}

/** A frozen call node; absent modifiers are left out, so equal calls print and compare equal. */
export function callNode(name: string, modifiers: CallModifiers = {}): CallNode {
  const node: { -readonly [K in keyof CallNode]: CallNode[K] } = { kind: 'call', name };
  if (modifiers.alias !== undefined) node.alias = modifiers.alias;
  if (modifiers.view !== undefined) node.view = modifiers.view;
  if (modifiers.limit !== undefined) node.limit = modifiers.limit;
  return Object.freeze(node);
}

export function groupNode(
  branches: readonly SeqNode[],
  merger: CallNode,
  expander?: CallNode,
): GroupNode {
  const node = expander
    ? { kind: 'group' as const, expander, branches: Object.freeze([...branches]), merger }
    : { kind: 'group' as const, branches: Object.freeze([...branches]), merger };
  return Object.freeze(node);
}

export function seqNode(stages: readonly StageNode[]): SeqNode {
  return Object.freeze({ kind: 'seq', stages: Object.freeze([...stages]) });
}

/** Structural equality of two pipeline nodes. */
export function equalNodes(a: PipelineNode, b: PipelineNode): boolean {
  switch (a.kind) {
    case 'call':
      return (
        b.kind === 'call' &&
        a.name === b.name &&
        a.alias === b.alias &&
        a.view === b.view &&
        a.limit === b.limit
      );
    case 'group':
      return (
        b.kind === 'group' &&
        equalOptional(a.expander, b.expander) &&
        equalNodes(a.merger, b.merger) &&
        equalLists(a.branches, b.branches)
      );
    case 'seq':
      return b.kind === 'seq' && equalLists(a.stages, b.stages);
  }
}

function equalOptional(a: CallNode | undefined, b: CallNode | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return equalNodes(a, b);
}

function equalLists(a: readonly PipelineNode[], b: readonly PipelineNode[]): boolean {
  return a.length === b.length && a.every((node, index) => equalNodes(node, b[index] as never));
}
