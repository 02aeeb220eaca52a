/**
 * An ONNX model written in TypeScript: inputs, outputs, nodes and initialisers, serialised to
 * the bytes ONNX Runtime loads. Large weights are never copied: an initialiser may point into a
 * weight file on disk (ONNX "external data": a file, an offset and a length), which ONNX Runtime
 * maps or reads itself; a weight stored as float16 or bfloat16 is cast to float32 by a `Cast`
 * node that ONNX Runtime folds into a float32 constant when the session is created.
 */
import { Message } from './protobuf.js';

/** ONNX element types (TensorProto.DataType). */
export const ELEMENT = {
  float32: 1,
  uint8: 2,
  int8: 3,
  int16: 5,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
  bfloat16: 16,
} as const;
export type ElementName = keyof typeof ELEMENT;

/** A float attribute (plain numbers are integer attributes). */
export class FloatAttr {
  constructor(readonly value: number) {}
}

/**
 * A float attribute value.
 *
 * @example builder.node('LayerNormalization', [x, scale, bias], { epsilon: float(1e-12) })
 */
export function float(value: number): FloatAttr {
  return new FloatAttr(value);
}

export type AttrValue = number | readonly number[] | string | FloatAttr;

/** A weight as it lies in a file: ONNX Runtime reads it from there. */
export interface ExternalTensor {
  readonly dtype: ElementName;
  readonly shape: readonly number[];
  /** The file's name inside the external-data folder the session is given. */
  readonly location: string;
  readonly offset: number;
  readonly length: number;
}

export interface NodeOptions {
  /** `com.microsoft` for ONNX Runtime's contributed operators. */
  domain?: string;
  /** How many outputs (default 1). */
  outputs?: number;
  /** Names for the outputs (default: generated). */
  names?: readonly string[];
}

const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;
const IR_VERSION = 8;
const OPSET = 17;

export class GraphBuilder {
  readonly #nodes: Message[] = [];
  readonly #initializers: Message[] = [];
  readonly #inputs: Message[] = [];
  readonly #outputs: Message[] = [];
  /** External weights already declared, by place in their file (tied weights share one). */
  readonly #external = new Map<string, string>();
  #counter = 0;

  constructor(readonly name: string) {}

  /** A fresh value name. */
  fresh(prefix: string): string {
    this.#counter++;
    return `${prefix}_${this.#counter}`;
  }

  /** Declares a graph input. `dims`: numbers, or names of symbolic dimensions. */
  input(name: string, type: ElementName, dims: readonly (number | string)[]): string {
    this.#inputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Declares a graph output (the value must be produced by a node). */
  output(name: string, type: ElementName, dims: readonly (number | string)[]): void {
    this.#outputs.push(valueInfo(name, type, dims));
  }

  /**
   * A weight read from its file, as float32: a `Cast` follows when it is stored otherwise.
   *
   * @example const w = builder.external('bert.pooler.dense.weight', entry)
   */
  external(name: string, tensor: ExternalTensor): string {
    const place = `${tensor.location}\n${tensor.offset}\n${tensor.length}\n${tensor.dtype}`;
    const known = this.#external.get(place);
    if (known !== undefined) return known;
    const proto = new Message();
    for (const dim of tensor.shape) proto.int(1, dim);
    proto
      .int(2, ELEMENT[tensor.dtype])
      .bytes(8, name)
      .bytes(13, entry('location', tensor.location))
      .bytes(13, entry('offset', String(tensor.offset)))
      .bytes(13, entry('length', String(tensor.length)))
      .int(14, 1);
    this.#initializers.push(proto);
    const value =
      tensor.dtype === 'float32'
        ? name
        : this.node('Cast', [name], { to: ELEMENT.float32 }, { names: [`${name}.float32`] });
    this.#external.set(place, value);
    return value;
  }

  /**
   * A small constant held in the model itself.
   *
   * @example builder.constant('int64', [0, -1], [2])
   */
  constant(
    type: 'float32' | 'int64' | 'int32',
    values: readonly number[],
    dims: readonly number[],
  ): string {
    const name = this.fresh('const');
    const data =
      type === 'int64'
        ? new Uint8Array(BigInt64Array.from(values, (v) => BigInt(v)).buffer)
        : type === 'int32'
          ? new Uint8Array(Int32Array.from(values).buffer)
          : new Uint8Array(Float32Array.from(values).buffer);
    this.inline(name, type, data, dims);
    return name;
  }

  /** An initialiser whose little-endian bytes are given. */
  inline(name: string, type: ElementName, data: Uint8Array, dims: readonly number[]): string {
    const proto = new Message();
    for (const dim of dims) proto.int(1, dim);
    this.#initializers.push(proto.int(2, ELEMENT[type]).bytes(8, name).bytes(9, data));
    return name;
  }

  /**
   * Appends a node; returns its (first) output's name.
   *
   * @example const y = builder.node('Gemm', [x, w, b], { transB: 1 })
   */
  node(
    op: string,
    inputs: readonly string[],
    attrs: Record<string, AttrValue> = {},
    options: NodeOptions = {},
  ): string {
    return this.nodeOutputs(op, inputs, attrs, options)[0]!;
  }

  /** Appends a node; returns all its outputs' names. */
  nodeOutputs(
    op: string,
    inputs: readonly string[],
    attrs: Record<string, AttrValue> = {},
    options: NodeOptions = {},
  ): string[] {
    const outputs =
      options.names?.slice() ??
      Array.from({ length: options.outputs ?? 1 }, () => this.fresh(op.toLowerCase()));
    const node = new Message();
    for (const input of inputs) node.bytes(1, input);
    for (const output of outputs) node.bytes(2, output);
    node.bytes(3, `${op}_${outputs[0]}`).bytes(4, op);
    for (const [key, value] of Object.entries(attrs)) node.bytes(5, attribute(key, value));
    if (options.domain) node.bytes(7, options.domain);
    this.#nodes.push(node);
    return outputs;
  }

  /** The ModelProto's bytes. */
  toBytes(): Uint8Array {
    const graph = new Message();
    for (const node of this.#nodes) graph.bytes(1, node);
    graph.bytes(2, this.name);
    for (const init of this.#initializers) graph.bytes(5, init);
    for (const input of this.#inputs) graph.bytes(11, input);
    for (const output of this.#outputs) graph.bytes(12, output);
    return new Message()
      .int(1, IR_VERSION)
      .bytes(2, 'irserve')
      .bytes(7, graph)
      .bytes(8, new Message().bytes(1, '').int(2, OPSET))
      .bytes(8, new Message().bytes(1, 'com.microsoft').int(2, 1))
      .toBytes();
  }
}

function entry(key: string, value: string): Message {
  return new Message().bytes(1, key).bytes(2, value);
}

function valueInfo(name: string, type: ElementName, dims: readonly (number | string)[]): Message {
  const shape = new Message();
  for (const dim of dims)
    shape.bytes(
      1,
      typeof dim === 'number' ? new Message().int(1, dim) : new Message().bytes(2, dim),
    );
  const tensor = new Message().int(1, ELEMENT[type]).bytes(2, shape);
  return new Message().bytes(1, name).bytes(2, new Message().bytes(1, tensor));
}

function attribute(name: string, value: AttrValue): Message {
  const message = new Message().bytes(1, name);
  if (value instanceof FloatAttr) return message.float(2, value.value).int(20, ATTR_FLOAT);
  if (typeof value === 'string') return message.bytes(4, value).int(20, ATTR_STRING);
  if (typeof value === 'number') return message.int(3, value).int(20, ATTR_INT);
  for (const item of value) message.int(8, item);
  return message.int(20, ATTR_INTS);
}
