/**
 * The ONNX graph that assigns vectors to their nearest centroid, built in TypeScript so no
 * model file ships: `labels = ArgMin(H - X·Cᵀ, axis 1)` with `H = |c|²/2` for L2 and `H = 0`
 * for inner product (argmax of x·c). Distances come from one MatMul, which a GPU provider runs.
 */
import { Message } from './protobuf.js';

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

function valueInfo(name: string, type: number, dims: (number | string)[]): Message {
  const shape = new Message();
  for (const dim of dims)
    shape.bytes(
      1,
      typeof dim === 'number' ? new Message().int(1, dim) : new Message().bytes(2, dim),
    );
  const tensor = new Message().int(1, type).bytes(2, shape);
  return new Message().bytes(1, name).bytes(2, new Message().bytes(1, tensor));
}

function node(
  op: string,
  inputs: string[],
  outputs: string[],
  attributes: Message[] = [],
): Message {
  const message = new Message();
  inputs.forEach((input) => message.bytes(1, input));
  outputs.forEach((output) => message.bytes(2, output));
  message.bytes(3, `${op}_${outputs[0]}`).bytes(4, op);
  attributes.forEach((attribute) => message.bytes(5, attribute));
  return message;
}

/**
 * The model bytes: inputs `x [n, d]`, `ct [d, k]`, `h [k]`; output `labels [n]` (int64).
 *
 * @example
 * const session = await ort.InferenceSession.create(assignGraph(), { executionProviders: ['cuda'] });
 */
export function assignGraph(): Uint8Array {
  const graph = new Message()
    .bytes(1, node('MatMul', ['x', 'ct'], ['dots']))
    .bytes(1, node('Sub', ['h', 'dots'], ['distances']))
    .bytes(
      1,
      node(
        'ArgMin',
        ['distances'],
        ['labels'],
        [
          new Message().bytes(1, 'axis').int(3, 1).int(20, ATTRIBUTE_INT),
          new Message().bytes(1, 'keepdims').int(3, 0).int(20, ATTRIBUTE_INT),
        ],
      ),
    )
    .bytes(2, 'nearest_centroid')
    .bytes(11, valueInfo('x', FLOAT, ['n', 'd']))
    .bytes(11, valueInfo('ct', FLOAT, ['d', 'k']))
    .bytes(11, valueInfo('h', FLOAT, ['k']))
    .bytes(12, valueInfo('labels', INT64, ['n']));
  return new Message()
    .int(1, 8)
    .bytes(2, 'irserve')
    .bytes(7, graph)
    .bytes(8, new Message().bytes(1, '').int(2, 17))
    .toBytes();
}
