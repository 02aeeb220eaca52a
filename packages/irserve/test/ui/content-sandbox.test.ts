/**
 * A hostile document in a served folder, opened in Chromium on the server's origin (the origin
 * of the API and the playground, whose tab keeps the API key in sessionStorage): served with
 * `Content-Security-Policy: sandbox`, its scripts do not run, so it cannot read the key.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { chromiumPath } from '../helpers/chromium.js';

const executablePath = chromiumPath();
const STEAL = "sessionStorage.getItem('irserve.apiKey')";

describe.skipIf(!executablePath)('raw content in Chromium', { timeout: 90_000 }, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-sandbox-'));
    await writeFile(
      join(dir, 'page.html'),
      `<title>untouched</title><script>document.title = 'stolen: ' + ${STEAL}</script>`,
    );
    await writeFile(
      join(dir, 'drawing.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg"><script>' +
        `document.documentElement.setAttribute('data-stolen', ${STEAL})</script></svg>`,
    );
    app = await testApp(
      {
        collections: [
          {
            name: 'files',
            views: {
              raw: { source: { source: 'local_path', path_template: '{id}', base_dir: dir } },
            },
          },
        ],
      },
      { cacheDir: join(dir, 'cache') },
    );
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    // The playground's tab, with the key it keeps.
    await page.goto(`${base}/ui/`);
    await page.evaluate("sessionStorage.setItem('irserve.apiKey', 'the-api-key')");
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an HTML document runs no script', async () => {
    await page.goto(`${base}/content/files/page.html`);
    expect(await page.evaluate('document.title')).toBe('untouched');
  });

  it('an SVG document runs no script', async () => {
    await page.goto(`${base}/content/files/drawing.svg`);
    expect(await page.evaluate("document.documentElement.getAttribute('data-stolen')")).toBeNull();
  });

  it('the playground itself still runs, with its key', async () => {
    await page.goto(`${base}/ui/`);
    expect(await page.evaluate(STEAL)).toBe('the-api-key');
  });
});
