/** Bounds-checked reads over pickle bytes, shared with the torch reader of @irserve/onnx. */
export { PickleCursor } from 'irserve/plugin';
