import express from 'express';
import { virtualAnchor } from '../src/index.js';
import { optionsFromEnv } from './config-from-env.js';
import { demoPage } from './demo-page.js';
import { serve } from './serve.js';

const { options, ...settings } = optionsFromEnv();
const app = express();
const media = virtualAnchor(options);
app.use(demoPage()); // the demo page at / (examples/demo-page.ts)
app.use(media);

serve('Express', (port, ready) => app.listen(port, ready), media.instance, settings);
