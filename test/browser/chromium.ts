/**
 * Debian's Chromium driven by playwright-core, with the flags this closed network needs: without
 * the background-networking switches Chromium keeps trying (and failing) to reach Google hosts.
 * Every page records each request it attempts and aborts anything that is not the report itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.FAULTLINE_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

export interface OpenBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh, empty profile directory for every run (playwright passes it as --user-data-dir). */
export async function openBrowser(viewport = { width: 1280, height: 900 }): Promise<OpenBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'faultline-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, viewport });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Every request the page attempted other than the report file itself (all were aborted). */
  requests: string[];
  consoleErrors: string[];
  dialogs: string[];
  pageErrors: string[];
}

/** Opens a report file; `loadMs` is the time until it is loaded, laid out and painted. */
export async function openReport(context: BrowserContext, file: string): Promise<WatchedPage & { loadMs: number }> {
  const page = await context.newPage();
  const watched: WatchedPage = { page, requests: [], consoleErrors: [], dialogs: [], pageErrors: [] };
  const self = `file://${file}`;
  await page.route('**', async (route) => {
    const url = route.request().url();
    if (url === self) return route.continue();
    watched.requests.push(url);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') watched.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => watched.pageErrors.push(e.message));
  page.on('dialog', (d) => {
    watched.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  // rendered = loaded, laid out (the height is read) and the next frame painted
  const started = performance.now();
  await page.goto(self, { waitUntil: 'load' });
  await page.evaluate('document.body.getBoundingClientRect().height');
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(0)))');
  const loadMs = performance.now() - started;
  return { ...watched, loadMs };
}
