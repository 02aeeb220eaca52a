/**
 * The progress display of a download: a file of a megabyte or more gets progress lines in MB
 * (a bar on a terminal); a small file only a debug line.
 */
import { describe, expect, it } from 'vitest';
import { downloadProgress } from '../../src/models/download-progress.js';

function recorder() {
  const info: string[] = [];
  const debug: string[] = [];
  return {
    info,
    debug,
    logger: { info: (m: string) => void info.push(m), debug: (m: string) => void debug.push(m) },
  };
}

describe('downloadProgress', () => {
  it('a large file: a closing line with its size in MB, off a terminal', () => {
    const { info, logger } = recorder();
    const progress = downloadProgress('org/m onnx/model.onnx', 90_400_000, {
      logger,
      interactive: false,
    });
    progress.update(45_000_000);
    progress.update(90_400_000);
    progress.done();
    expect(info.at(-1)).toMatch(
      /^downloading org\/m onnx\/model\.onnx: 90\.4\/90\.4 MB \(100%\) done in \d+\.\ds$/,
    );
  });

  it('a small file: one debug line and no progress lines', () => {
    const { info, debug, logger } = recorder();
    const progress = downloadProgress('org/m tokenizer.json', 700_000, {
      logger,
      interactive: false,
    });
    progress.update(700_000);
    progress.done();
    expect(info).toEqual([]);
    expect(debug).toEqual(['downloading org/m tokenizer.json (700 kB)']);
  });
});
