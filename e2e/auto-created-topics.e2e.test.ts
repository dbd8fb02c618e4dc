/**
 * Topic auto-creation in the console, in Chromium against `npm run serve`: before any topic the
 * Overview says a client can create one by naming it; a kafkajs producer's send creates `clicks`;
 * the Topics page marks it auto-created (and not a topic an admin created) and its page says which
 * client created it, through which request, when.
 */
import { Kafka, logLevel } from 'kafkajs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, screenshotter } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';

describe('auto-created topics in the console', () => {
  let k: KafkaServe;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('auto-created-topics');

  beforeAll(async () => {
    k = await startKafkaServe();
    browser = await launchBrowser();
    ({ context, page, pageErrors } = await openConsole(browser, k.host, '/'));
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await k?.stop();
  });

  it('the Overview says how a topic comes to be when there is none: the Topics page, or a client naming it', async () => {
    const none = page.getByTestId('snippet-no-topic');
    await expect.poll(() => none.textContent(), { timeout: 20_000 }).toContain('a client creates it by naming it (auto.create.topics.enable is true)');
    await shot(page, 'overview-no-topic');
  });

  it('a producer\'s send creates the topic; the Topics page marks it auto-created and its page names the client', async () => {
    await api(k.host, 'topics.create', { name: 'orders', partitions: 1, replicationFactor: 3 });
    const kafka = new Kafka({ brokers: k.bootstrap.split(','), clientId: 'web-shop', logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1_000 } });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'clicks', acks: -1, messages: [{ value: 'first click' }] });
    await producer.disconnect();

    await page.goto(`${k.host.origin}/#/topics`);
    const clicks = page.locator('[data-testid="topic-row"][data-topic="clicks"]');
    await clicks.waitFor({ timeout: 20_000 });
    expect(await clicks.getByTestId('topic-auto-created').textContent()).toBe('auto-created');
    expect(await clicks.getByTestId('topic-auto-created').getAttribute('title')).toBe('Created by client web-shop through Metadata, not by an admin');
    expect(await page.locator('[data-testid="topic-row"][data-topic="orders"]').getByTestId('topic-auto-created').count()).toBe(0);
    await shot(page, 'topics-auto-created');

    await clicks.getByTestId('topic-link').click();
    const by = page.getByTestId('topic-created-by');
    await by.waitFor({ timeout: 20_000 });
    expect(await by.textContent()).toMatch(/Created by\s*client “web-shop” through Metadata at \d/);
    await shot(page, 'topic-created-by');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
