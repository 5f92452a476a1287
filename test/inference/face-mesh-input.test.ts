/**
 * `findFaceMeshes` hands the model the RGB channels of its RGBA pixels packed into a tensor of its own (the WASM
 * backend's slice of the inner dimension runs in JavaScript, element by element). The model must see the same
 * tensor as through that slice: on a real photo (dlib's, from Debian's libdlib19.1) both give the same meshes and
 * scores, value for value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePhoto } from '../../src/inference/face/decode-photo.js';
import { faceMeshModel, findFaceMeshes } from '../../src/inference/face/human-face-mesh.js';
import { dlibPhoto } from '../helpers/dlib-faces.js';

describe('the face mesh model’s input', () => {
  it('gives the same meshes as the RGBA tensor sliced to RGB', async () => {
    const photo = await decodePhoto(dlibPhoto('2008_002506.jpg'), 640);
    const { scaledWidth: width, scaledHeight: height, pixels } = photo;
    const packed = await findFaceMeshes(pixels, width, height);

    const human = await faceMeshModel();
    const { tf } = human;
    const input = tf.tidy(() => tf.expandDims(tf.slice(tf.tensor3d(pixels, [height, width, 4], 'int32'), [0, 0, 0], [height, width, 3]), 0));
    const sliced = await human.detect(input);
    tf.dispose(input);

    assert.ok(packed.length >= 2, `faces found: ${packed.length}`);
    assert.deepEqual(
      packed,
      sliced.face.map((face) => ({ mesh: face.mesh.map(([x, y]) => [x, y]), score: face.score, faceScore: face.faceScore })),
    );
  });
});
