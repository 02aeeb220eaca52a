import { createApp, type App, type AppOptions } from '../../src/app.js';
import { quietLogger } from './logger.js';
import { TEST_ENGINES } from './engines.js';

/** The services most HTTP tests use. */
export const BASIC_SERVICES = [
  { name: 'const', engine: 'ConstSearch', max_wait_time: 0.005 },
  { name: 'const_nocache', engine: 'ConstSearch', cache: -1, max_wait_time: 0.005 },
  { name: 'recording', engine: 'RecordingSearch', max_wait_time: 0.05, cache: 0 },
  { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0.005 },
  { name: 'bytesize', engine: 'ByteSizeScore', max_wait_time: 0.005 },
  { name: 'failing', engine: 'FailingSearch', max_wait_time: 0.005 },
  { name: 'wrong', engine: 'WrongShapeSearch', max_wait_time: 0.005 },
  { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0.005 },
];

/** An app with the test engines, started; close it in afterAll/afterEach. */
export async function testApp(
  config: Record<string, unknown> = { services: BASIC_SERVICES },
  options: AppOptions = {},
): Promise<App> {
  const app = await createApp(config, {
    logger: quietLogger(),
    engines: TEST_ENGINES,
    interactive: false,
    ...options,
  });
  await app.start();
  return app;
}
