import Koa from 'koa';
import { virtualAnchorKoa } from '../src/index.js';
import { optionsFromEnv } from './config-from-env.js';
import { demoPageKoa } from './demo-page.js';
import { serve } from './serve.js';

const { options, ...settings } = optionsFromEnv();
const app = new Koa();
const media = virtualAnchorKoa(options);
app.use(demoPageKoa()); // the demo page at / (examples/demo-page.ts)
app.use(media);

serve('Koa', (port, ready) => app.listen(port, ready), media.instance, settings);
