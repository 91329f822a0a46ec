import { AudioByteStream, tts, type APIConnectOptions } from '@livekit/agents';
import { AudioResampler, type AudioFrame } from '@livekit/rtc-node';
import { spawn } from 'node:child_process';
import { ownFrame } from '../translation/frames';

/** eSpeak NG writes 22.05 kHz mono 16-bit WAV, with a 44-byte header. */
const ESPEAK_RATE = 22_050;
const WAV_HEADER = 44;
/** eSpeak NG's default speaking rate, words per minute. */
const ESPEAK_WPM = 175;

/**
 * Speech synthesis with eSpeak NG, as the framework's TTS: one short-lived process per sentence
 * (it starts in milliseconds), audio streamed out as it is produced, resampled to the track's rate
 * in 20 ms frames. Not streaming itself: the pipeline wraps it in `tts.StreamAdapter`.
 */
export class EspeakTTS extends tts.TTS {
  label = 'espeak-ng';

  constructor(
    readonly voice: string,
    sampleRate: number,
    private readonly command = 'espeak-ng',
    /** Times eSpeak NG's normal rate (175 words per minute). */
    readonly speed = 1,
    /**
     * The pause eSpeak NG leaves after the text (≈ 0.3 s at its normal rate): false for simultaneous
     * mode's pieces (`-z`), which continue one another; the speech then ends with its last word.
     */
    readonly finalPause = true,
  ) {
    super(sampleRate, 1, { streaming: false });
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return new EspeakStream(text, this, this.command, connOptions, abortSignal);
  }

  stream(): tts.SynthesizeStream {
    throw new Error('EspeakTTS is not streaming: wrap it in tts.StreamAdapter');
  }
}

class EspeakStream extends tts.ChunkedStream {
  label = 'espeak-ng';

  constructor(
    text: string,
    private readonly engine: EspeakTTS,
    private readonly command: string,
    connOptions?: APIConnectOptions,
    abortSignal?: AbortSignal,
  ) {
    super(text, engine, connOptions, abortSignal);
  }

  protected async run(): Promise<void> {
    const requestId = `espeak-${Date.now().toString(36)}`;
    const rate = String(Math.round(ESPEAK_WPM * this.engine.speed));
    const pause = this.engine.finalPause ? [] : ['-z'];
    const child = spawn(this.command, ['-v', this.engine.voice, '-s', rate, ...pause, '--stdout'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const onAbort = () => child.kill();
    this.abortSignal.addEventListener('abort', onAbort);
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    child.stdin.end(this.inputText);
    const resampler = this.engine.sampleRate === ESPEAK_RATE ? null : new AudioResampler(ESPEAK_RATE, this.engine.sampleRate, 1);
    const chunker = new AudioByteStream(ESPEAK_RATE, 1, ESPEAK_RATE / 50);
    let header = WAV_HEADER;
    let last: AudioFrame | null = null;
    const put = (frames: AudioFrame[]) => {
      for (const frame of frames.flatMap((f) => (resampler ? resampler.push(ownFrame(f)) : [f]))) {
        if (last) this.queue.put({ requestId, segmentId: requestId, frame: last, final: false });
        last = frame;
      }
    };
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        let data = chunk;
        if (header > 0) {
          const skip = Math.min(header, data.length);
          header -= skip;
          data = data.subarray(skip);
        }
        // Copy: the chunker keeps views of what it is given.
        if (data.length > 0) put(chunker.write(Uint8Array.from(data).buffer));
      }
      const code = await exited;
      if (code !== 0 && !this.abortSignal.aborted) throw new Error(`espeak-ng exited with ${code}`);
      put(chunker.flush());
      if (resampler) put(resampler.flush());
      if (last) this.queue.put({ requestId, segmentId: requestId, frame: last, final: true });
    } finally {
      this.abortSignal.removeEventListener('abort', onAbort);
      this.queue.close();
    }
  }
}
