/**
 * `device` for ONNX sessions: `auto` falls back to the CPU with the reasons, an explicit GPU
 * device that cannot initialise is an error naming what is missing, IRSERVE_ONNX_DEVICE moves
 * sessions whose engines pass no options.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { captureLogs } from 'irserve/testing';
import {
  CUDA_INSTALL_STEP,
  CrossEncoderReranker,
  SessionPool,
  cudaProviderInstalled,
  requestedDevice,
  sessionOptions,
} from '@irserve/onnx';
import { startApp, testWorld } from './app-helpers.js';
import { TINY_BERT, TINY_CROSS_ENCODER } from './helpers.js';
import { webgpuUnavailable } from '../src/runtime/vulkan-loader.js';

const cudaPresent = cudaProviderInstalled();

describe('ONNX device', () => {
  it('auto runs where a provider initialises, and says why it passed over the others', async () => {
    const lease = await new SessionPool().acquire(TINY_BERT, { device: 'auto' });
    try {
      const { device, skipped, providers } = lease.session.device;
      expect(['cuda', 'webgpu', 'cpu']).toContain(device);
      expect(providers.at(-1)).toBe('cpu');
      if (!cudaPresent) expect(skipped[0]).toContain(CUDA_INSTALL_STEP);
      if (device === 'cpu') expect(skipped.map((s) => s.split(':')[0])).toEqual(['cuda', 'webgpu']);
    } finally {
      await lease.release();
    }
  });

  it('auto on a Linux host without the Vulkan loader passes WebGPU over quietly, with the reason', async () => {
    const script = [
      "import { SessionPool } from '@irserve/onnx';",
      `const lease = await new SessionPool().acquire(${JSON.stringify(TINY_BERT)}, { device: 'auto' });`,
      'console.log(JSON.stringify(lease.session.device));',
      'await lease.release();',
    ].join('\n');
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: import.meta.dirname },
    );
    const choice = JSON.parse(stdout) as { device: string; skipped: string[] };
    if (webgpuUnavailable() === undefined) return; // a host that has Vulkan tries WebGPU itself
    expect(choice.skipped.find((reason) => reason.startsWith('webgpu:'))).toMatch(
      /webgpu: the Vulkan loader \(libvulkan.so.1\) is not installed/,
    );
    expect(stderr).not.toMatch(/dawn|Vulkan|\.cpp/i);
  });

  it('finds the Vulkan loader in the linker cache or LD_LIBRARY_PATH, and only asks on Linux', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-vulkan-'));
    try {
      const cache = join(dir, 'ld.so.cache');
      await writeFile(cache, 'glibc-ld.so.cache1.1\0libm.so.6\0');
      const env = {};
      expect(webgpuUnavailable({ platform: 'linux', env, ldCache: cache })).toMatch(
        /libvulkan\.so\.1\) is not installed/,
      );
      expect(
        webgpuUnavailable({ platform: 'linux', env, ldCache: join(dir, 'none') }),
      ).toBeDefined();
      await writeFile(join(dir, 'libvulkan.so.1'), '');
      expect(
        webgpuUnavailable({
          platform: 'linux',
          env: { LD_LIBRARY_PATH: `/nowhere:${dir}` },
          ldCache: cache,
        }),
      ).toBeUndefined();
      await writeFile(cache, 'glibc-ld.so.cache1.1\0libvulkan.so.1\0/usr/lib/libvulkan.so.1\0');
      expect(webgpuUnavailable({ platform: 'linux', env, ldCache: cache })).toBeUndefined();
      expect(
        webgpuUnavailable({ platform: 'darwin', env, ldCache: join(dir, 'none') }),
      ).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(cudaPresent)(
    'an explicit cuda device without the provider library names the install step',
    async () => {
      await expect(new SessionPool().acquire(TINY_BERT, { device: 'cuda' })).rejects.toThrow(
        /device "cuda" cannot be used: cuda: the CUDA provider library is not installed \(ONNXRUNTIME_NODE_INSTALL=cuda12 node /,
      );
    },
  );

  it('an explicit webgpu device either runs on WebGPU or is refused with the reason', async () => {
    const attempt = new SessionPool().acquire(TINY_BERT, { device: 'webgpu' });
    const lease = await attempt.catch((error: Error) => error);
    if (lease instanceof Error)
      expect(lease.message).toMatch(/device "webgpu" cannot be used: webgpu: /);
    else {
      expect(lease.session.device.device).toBe('webgpu');
      await lease.release();
    }
  });

  it('where WebGPU initialises, its outputs equal the CPU ones', async () => {
    const pool = new SessionPool();
    const webgpu = await pool.acquire(TINY_BERT, { device: 'webgpu' }).catch((error: Error) => {
      console.warn(
        `WebGPU does not initialise here, the equality test is skipped: ${error.message}`,
      );
      return undefined;
    });
    if (!webgpu) return;
    const cpu = await pool.acquire(TINY_BERT, { device: 'cpu' });
    try {
      const texts = ['the cat sat on the mat', 'jet engine thrust', 'hello'];
      const outputs = await Promise.all(
        [webgpu, cpu].map(async (lease) => {
          const batch = lease.tokenizer.encodeBatch(texts, { maxLength: 32 });
          return (await lease.session.run(batch, ['last_hidden_state'])).last_hidden_state!;
        }),
      );
      const [gpu, reference] = outputs as [(typeof outputs)[number], (typeof outputs)[number]];
      expect(gpu.dims).toEqual(reference.dims);
      gpu.data.forEach((x, i) => expect(Math.abs(x - reference.data[i]!)).toBeLessThan(1e-3));
    } finally {
      await webgpu.release();
      await cpu.release();
    }
  });

  it('cpu, and no device at all, use the providers asked for', async () => {
    const pool = new SessionPool();
    const cpu = await pool.acquire(TINY_BERT, { device: 'cpu' });
    const plain = await pool.acquire(TINY_BERT);
    expect(cpu.session.device).toEqual({ device: 'cpu', providers: ['cpu'], skipped: [] });
    expect(plain.session.device.device).toBe(
      process.env.IRSERVE_ONNX_DEVICE ? expect.anything() : 'custom',
    );
    expect(pool.size).toBe(2);
    await cpu.release();
    await plain.release();
  });

  it('IRSERVE_ONNX_DEVICE applies when no device is given, and bad values are refused', () => {
    expect(requestedDevice(undefined, { IRSERVE_ONNX_DEVICE: 'auto' })).toBe('auto');
    expect(requestedDevice('cpu', { IRSERVE_ONNX_DEVICE: 'auto' })).toBe('cpu');
    expect(requestedDevice(undefined, {})).toBeUndefined();
    expect(() => requestedDevice(undefined, { IRSERVE_ONNX_DEVICE: 'tpu' })).toThrow(
      /IRSERVE_ONNX_DEVICE must be one of auto, cuda, webgpu, cpu, got "tpu"/,
    );
    expect(() => sessionOptions({ device: 'tpu' as 'cpu' })).toThrow();
  });

  it('the cross-encoder logs the device it runs on', async () => {
    const world = await testWorld();
    const { logger, logs } = captureLogs('info');
    const app = await startApp(
      {
        collections: [world.collection],
        services: [
          {
            name: 'rerank',
            engine: 'CrossEncoderReranker',
            config: { model_path: TINY_CROSS_ENCODER, device: 'auto' },
          },
        ],
      },
      world.dir,
      [CrossEncoderReranker],
      logger,
    );
    try {
      const device = logs.find(/^cross-encoder loaded$/)?.['device'] as { providers: string[] };
      expect(device.providers.at(-1)).toBe('cpu');
    } finally {
      await app.close();
      await world.close();
    }
  });
});
