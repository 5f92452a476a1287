import express from 'express';
import { virtualAnchor } from '../src/index.js';
import { optionsFromEnv } from './config-from-env.js';
import { demoPage } from './demo-page.js';

const { options, port, devKey } = optionsFromEnv();
const app = express();
const media = virtualAnchor(options);
app.use(demoPage()); // the demo page at / (examples/demo-page.ts)
app.use(media);

const server = app.listen(port, () => {
  console.log(`virtual-anchor (Express) listening on http://localhost:${port}`);
  if (devKey) console.log(`development API key (set VIRTUAL_ANCHOR_API_KEYS to choose your own): ${devKey}`);
  console.log(`OpenAPI document: http://localhost:${port}/v1/openapi.json`);
});

const shutdown = () => {
  server.close();
  void media.instance.close().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
