/** `@irserve/onnx`: In-process models for irserve on ONNX Runtime: model folders, tokenizers, sessions, pooling, local encoders and cross-encoder rerankers. */
export { engines } from './engines.js';
