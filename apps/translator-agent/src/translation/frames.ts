import { AudioFrame } from '@livekit/rtc-node';

/**
 * The frame with samples in a buffer of their own. rtc-node 0.13 hands native code (resampler,
 * `AudioSource.captureFrame`) a pointer to the start of the frame's ArrayBuffer, ignoring the view's
 * offset: a frame that is a slice of a larger buffer (AudioByteStream's are) is read as other audio.
 */
export function ownFrame(frame: AudioFrame): AudioFrame {
  const { data } = frame;
  if (data.byteOffset === 0 && data.buffer.byteLength === data.byteLength) return frame;
  return new AudioFrame(data.slice(), frame.sampleRate, frame.channels, frame.samplesPerChannel);
}
