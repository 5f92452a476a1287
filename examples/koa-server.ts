import Koa from 'koa';
import { virtualAnchorKoa } from '../src/index.js';
import { optionsFromEnv } from './config-from-env.js';
import { demoPageKoa } from './demo-page.js';

const { options, port, devKey } = optionsFromEnv();
const app = new Koa();
const media = virtualAnchorKoa(options);
app.use(demoPageKoa()); // the demo page at / (examples/demo-page.ts)
app.use(media);

const server = app.listen(port, () => {
  console.log(`virtual-anchor (Koa) listening on http://localhost:${port}`);
  if (devKey) console.log(`development API key (set VIRTUAL_ANCHOR_API_KEYS to choose your own): ${devKey}`);
  console.log(`OpenAPI document: http://localhost:${port}/v1/openapi.json`);
});

const shutdown = () => {
  server.close();
  void media.instance.close().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
