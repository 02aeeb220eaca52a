/**
 * `@irserve/gpu/kmeans`: nearest-centroid assignment on a GPU through ONNX Runtime, for
 * `irserve-build-index --use_gpu`. It imports nothing from @irserve/dense, which loads it.
 */
export { GpuAssigner, type AssignMetric } from './gpu-assigner.js';
export { openGpuAssigner } from './open-gpu.js';
export { assignGraph } from './assign-graph.js';
