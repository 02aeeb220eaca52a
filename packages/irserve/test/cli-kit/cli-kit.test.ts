import { describe, expect, it } from 'vitest';
import {
  commonFlags,
  flag,
  formatHelp,
  parseCommandLine,
  runCommand,
  UsageError,
  type CliIo,
  type CommandSpec,
} from '../../src/cli-kit/index.js';
import { IrserveError } from '../../src/errors.js';

const FLAGS = {
  index_string: flag.string({ placeholder: 'S', default: 'Flat', help: 'factory string' }),
  sampling_rate: flag.number({ default: 0.25, min: 0, max: 1, help: 'fraction' }),
  threads: commonFlags.threads({ default: 1, min: 1, max: 256, help: 'worker threads' }),
  seed: commonFlags.seed({ help: 'seed' }),
  memory_budget: commonFlags.memoryBudget({ help: 'memory the build may hold' }),
  metric: flag.choice(['ip', 'l2'], { default: 'ip', help: 'inner product or L2' }),
  use_gpu: flag.switch({ help: 'train on a GPU\nan error when none is usable' }),
  normalize: flag.switch({ negatable: true, help: 'L2-normalise' }),
};

const SPEC: CommandSpec<typeof FLAGS> = {
  name: 'irserve-demo',
  usage: ['irserve-demo <input> <output> [options]', 'irserve-demo --other-form <output>'],
  description: 'Does the demo.',
  positionals: [{ name: '<input>', help: 'where it reads' }, { name: '<output>' }],
  flags: FLAGS,
  footer: 'Environment:\n  DEMO  nothing',
};

function capture(interactive = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), interactive };
  return { io, out, err };
}

describe('parseCommandLine', () => {
  it('reads every flag with its default, both spellings and both value forms', () => {
    const parsed = parseCommandLine(FLAGS, [
      'in',
      '--index-string',
      'HNSW32',
      '--sampling_rate=0.5',
      'out',
      '--threads',
      '4',
      '--memory-budget',
      '1.5G',
      '--seed',
      '-3',
      '--use_gpu',
      '--no-normalize',
    ]);
    expect(parsed.positionals).toEqual(['in', 'out']);
    expect(parsed.flags).toEqual({
      index_string: 'HNSW32',
      sampling_rate: 0.5,
      threads: 4,
      seed: -3,
      memory_budget: Math.floor(1.5 * 2 ** 30),
      metric: 'ip',
      use_gpu: true,
      normalize: false,
    });
  });

  it('leaves flags without a default undefined, and takes what follows -- as positionals', () => {
    const parsed = parseCommandLine(FLAGS, ['a', '--', '--threads', '-x']);
    expect(parsed.flags.seed).toBeUndefined();
    expect(parsed.flags.use_gpu).toBeUndefined();
    expect(parsed.flags.threads).toBe(1);
    expect(parsed.positionals).toEqual(['a', '--threads', '-x']);
  });

  it.each([
    [['--samping_rate', '1'], 'unknown option --samping_rate (did you mean --sampling_rate?)'],
    [['--bogus'], 'unknown option --bogus'],
    [['-x'], 'unknown option -x'],
    [['--threads'], '--threads needs a value (--threads N)'],
    [['--threads', '--seed', '1'], '--threads needs a value (--threads N)'],
    [['--use_gpu=yes'], '--use_gpu takes no value'],
    [['--no-use_gpu'], 'unknown option --no-use_gpu'],
    [['--threads', '0'], '--threads must be an integer from 1 to 256, got "0"'],
    [['--threads', '1.5'], '--threads must be an integer from 1 to 256, got "1.5"'],
    [['--seed', 'x'], '--seed must be an integer, got "x"'],
    [['--sampling_rate', 'NaN'], '--sampling_rate must be a number from 0 to 1, got "NaN"'],
    [['--sampling_rate', ''], '--sampling_rate must be a number from 0 to 1, got ""'],
    [['--metric', 'cos'], '--metric must be ip or l2, got cos'],
    [
      ['--memory_budget', 'lots'],
      '--memory_budget must be a size such as 4096 (bytes), 64M or 64MiB',
    ],
  ])('%j: %s', (argv, message) => {
    expect(() => parseCommandLine(FLAGS, argv)).toThrow(UsageError);
    expect(() => parseCommandLine(FLAGS, argv)).toThrow(message);
  });

  it('keeps every occurrence of a repeatable flag, in order', () => {
    const specs = { pipeline: flag.strings({ placeholder: 'EXPR', help: 'a pipeline' }) };
    expect(parseCommandLine(specs, []).flags.pipeline).toEqual([]);
    const parsed = parseCommandLine(specs, ['--pipeline', 'a=x', 'c.json', '--pipeline=b']);
    expect(parsed.flags.pipeline).toEqual(['a=x', 'b']);
    expect(parsed.positionals).toEqual(['c.json']);
  });

  it('reads sizes in both kinds of units', () => {
    const size = (raw: string) =>
      parseCommandLine(FLAGS, ['--memory_budget', raw]).flags.memory_budget;
    expect(size('4096')).toBe(4096);
    expect(size('512M')).toBe(512 * 2 ** 20);
    expect(size('2GiB')).toBe(2 * 2 ** 30);
    expect(size('2GB')).toBe(2e9);
    expect(size('1k')).toBe(1024);
    expect(size('64MiB')).toBe(64 * 2 ** 20);
    expect(size('64MB')).toBe(64e6);
    expect(size('1.5G')).toBe(1.5 * 2 ** 30);
  });
});

describe('formatHelp', () => {
  it('lays out usage forms, description, positionals and flags in two aligned columns', () => {
    expect(formatHelp(SPEC)).toBe(
      [
        'usage: irserve-demo <input> <output> [options]',
        '       irserve-demo --other-form <output>',
        '',
        'Does the demo.',
        '',
        'Options:',
        '  <input>               where it reads',
        '  --index_string S      factory string',
        '  --sampling_rate F     fraction',
        '  --threads N           worker threads',
        '  --seed N              seed',
        '  --memory_budget SIZE  memory the build may hold',
        '  --metric ip|l2        inner product or L2',
        '  --use_gpu             train on a GPU',
        '                        an error when none is usable',
        '  --normalize / --no-normalize',
        '                        L2-normalise',
        '  -h, --help            this text',
        '',
        'Environment:',
        '  DEMO  nothing',
      ].join('\n'),
    );
  });
});

describe('runCommand', () => {
  const run = (argv: string[], action: () => Promise<number | void>, env = {}) => {
    const { io, out, err } = capture();
    return runCommand(SPEC, argv, action, { io, env }).then((code) => ({ code, out, err }));
  };
  const ok = async () => {};

  it('prints the help for --help or -h anywhere, even beside mistakes, and exits 0', async () => {
    for (const argv of [['--help'], ['a', '--bogus', '-h']]) {
      const r = await run(argv, ok);
      expect(r.code).toBe(0);
      expect(r.out[0]).toBe(formatHelp(SPEC));
    }
  });

  it('passes the parsed line to the action and exits with its code (0 by default)', async () => {
    let seen: unknown;
    const { io } = capture();
    const code = await runCommand(
      SPEC,
      ['a', 'b', '--threads', '3'],
      async ({ flags, positionals }) => void (seen = { threads: flags.threads, positionals }),
      { io, env: {} },
    );
    expect(code).toBe(0);
    expect(seen).toEqual({ threads: 3, positionals: ['a', 'b'] });
    expect((await run(['a', 'b'], async () => 3)).code).toBe(3);
  });

  it('a usage mistake is one line, the usage lines and the --help hint, exit 2', async () => {
    const r = await run(['a'], ok);
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      [
        'irserve-demo: expected <input> and <output>, got 1 argument',
        'usage: irserve-demo <input> <output> [options]',
        '       irserve-demo --other-form <output>',
        'Run "irserve-demo --help" for every option.',
      ].join('\n'),
    ]);
    expect((await run(['a', 'b', '--threads', 'x'], ok)).code).toBe(2);
    expect((await run(['a', 'b', 'c'], ok)).err[0]).toMatch(/got 3 arguments/);
  });

  it('a config mistake exits 2, any other failure 1, each one line with its cause', async () => {
    const config = await run(['a', 'b'], () =>
      Promise.reject(new IrserveError('ERR_CONFIG', 'services[0]: unknown engine')),
    );
    expect(config).toMatchObject({
      code: 2,
      err: ['irserve-demo: services[0]: unknown engine'],
    });
    const failed = await run(['a', 'b'], () =>
      Promise.reject(new Error('cannot read a', { cause: new Error('ENOENT') })),
    );
    expect(failed).toMatchObject({
      code: 1,
      err: ['irserve-demo: cannot read a\n  caused by: ENOENT'],
    });
  });

  it('prints a cause only where it adds to what is printed already', async () => {
    const inner = new Error('model.onnx not found');
    const wrapped = new Error(`service "dense" failed to start: ${inner.message}`, {
      cause: inner,
    });
    expect((await run(['a', 'b'], () => Promise.reject(wrapped))).err).toEqual([
      'irserve-demo: service "dense" failed to start: model.onnx not found',
    ]);
    const root = new Error('ECONNREFUSED 127.0.0.1:5432');
    const chain = new Error('service "pg" failed to start: connection failed', {
      cause: new Error('connection failed', { cause: root }),
    });
    expect((await run(['a', 'b'], () => Promise.reject(chain))).err).toEqual([
      'irserve-demo: service "pg" failed to start: connection failed\n  caused by: ECONNREFUSED 127.0.0.1:5432',
    ]);
  });

  it('adds the stack with IRSERVE_DEBUG', async () => {
    const r = await run(['a', 'b'], () => Promise.reject(new Error('boom')), {
      IRSERVE_DEBUG: '1',
    });
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/Error: boom\n\s+at /);
    expect(r.err[1]).toBe('irserve-demo: boom');
  });
});
