import type { VideoEncoderSettings } from '../media/encode-video.js';

/**
 * A video avatar job's H.264 settings unless the engine is given others: a person's own footage is encoded once
 * more, so at a higher quality than drawn avatars (crf 23): outside the lower face the video stays the clip.
 */
export const VIDEO_AVATAR_ENCODER: VideoEncoderSettings = { crf: 18 };
