/**
 * Reads a SentencePiece `ModelProto` (the `spiece.model` / `sentencepiece.bpe.model` file of T5,
 * mT5 and other SentencePiece checkpoints): its pieces with their scores and types, the model
 * type, and the normalizer settings. A small protobuf reader: only the fields irserve needs are
 * decoded, every other field is skipped by its wire type.
 */

/** SentencePiece's piece types (`SentencePiece.Type` of sentencepiece_model.proto). */
export const PIECE_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 };

/** SentencePiece's model types (`TrainerSpec.ModelType`). */
export const MODEL_TYPE_NAMES: Record<number, string> = {
  1: 'unigram',
  2: 'bpe',
  3: 'word',
  4: 'char',
};

export interface SentencePiece {
  readonly piece: string;
  readonly score: number;
  readonly type: number;
}

export interface SentencePieceModel {
  readonly pieces: readonly SentencePiece[];
  /** `TrainerSpec.model_type` (1: unigram). */
  readonly modelType: number;
  readonly normalizer: Readonly<NormalizerSpec>;
}

/** The fields of `NormalizerSpec` irserve reads (the precompiled character map is not). */
export interface NormalizerSpec {
  /** The normalization rule (`nmt_nfkc` for T5 / mT5, `identity`, ...). */
  name: string;
  addDummyPrefix: boolean;
  removeExtraWhitespaces: boolean;
  escapeWhitespaces: boolean;
}

/** A protobuf field: its number, and its value (a varint, a 32-bit word or bytes). */
interface Field {
  readonly number: number;
  readonly varint?: number;
  readonly fixed32?: number;
  readonly bytes?: Uint8Array;
}

/**
 * Parses a ModelProto; throws an Error saying what is wrong with a file that is not one.
 *
 * @example
 * const model = parseSentencePieceModel(await readFile('models/monot5/spiece.model'));
 * model.pieces[1].piece // '</s>'
 */
export function parseSentencePieceModel(data: Uint8Array): SentencePieceModel {
  const pieces: SentencePiece[] = [];
  let modelType = 1;
  const normalizer: NormalizerSpec = {
    name: 'identity',
    addDummyPrefix: true,
    removeExtraWhitespaces: true,
    escapeWhitespaces: true,
  };
  for (const field of readFields(data)) {
    if (field.number === 1 && field.bytes) pieces.push(readPiece(field.bytes));
    if (field.number === 2 && field.bytes)
      for (const sub of readFields(field.bytes)) if (sub.number === 3) modelType = sub.varint ?? 1;
    if (field.number === 3 && field.bytes) readNormalizer(field.bytes, normalizer);
  }
  if (pieces.length === 0) throw new Error('holds no pieces (is it a SentencePiece model?)');
  return { pieces, modelType, normalizer };
}

function readPiece(data: Uint8Array): SentencePiece {
  let piece: string | undefined;
  let score = 0;
  let type = PIECE_TYPE.normal;
  for (const field of readFields(data)) {
    if (field.number === 1 && field.bytes) piece = new TextDecoder().decode(field.bytes);
    if (field.number === 2 && field.fixed32 !== undefined) score = field.fixed32;
    if (field.number === 3 && field.varint !== undefined) type = field.varint;
  }
  if (piece === undefined) throw new Error('a piece has no text (is it a SentencePiece model?)');
  return { piece, score, type };
}

function readNormalizer(data: Uint8Array, into: NormalizerSpec): void {
  for (const field of readFields(data)) {
    if (field.number === 1 && field.bytes) into.name = new TextDecoder().decode(field.bytes);
    if (field.number === 3) into.addDummyPrefix = field.varint !== 0;
    if (field.number === 4) into.removeExtraWhitespaces = field.varint !== 0;
    if (field.number === 5) into.escapeWhitespaces = field.varint !== 0;
  }
}

/** The fields of one protobuf message, in order. */
function* readFields(data: Uint8Array): Generator<Field> {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= data.length) throw new Error('is truncated (a varint runs past its end)');
      const byte = data[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      if (shift > 63) throw new Error('is not a protobuf message (a varint is too long)');
    }
  };
  const need = (bytes: number) => {
    if (pos + bytes > data.length) throw new Error('is truncated (a field runs past its end)');
  };
  while (pos < data.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) yield { number, varint: varint() };
    else if (wire === 1) {
      need(8);
      pos += 8;
    } else if (wire === 5) {
      need(4);
      yield { number, fixed32: view.getFloat32(pos, true) };
      pos += 4;
    } else if (wire === 2) {
      const length = varint();
      need(length);
      yield { number, bytes: data.subarray(pos, pos + length) };
      pos += length;
    } else throw new Error(`is not a protobuf message (wire type ${wire} at byte ${pos})`);
  }
}
