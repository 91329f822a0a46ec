/** Just enough RIFF/WAVE for the file translator: PCM (8/16/24/32-bit) and 32-bit float in, 16-bit PCM out. */
export interface PcmAudio {
  sampleRate: number;
  channels: number;
  /** Interleaved 16-bit samples. */
  samples: Int16Array;
}

export function parseWav(file: Buffer): PcmAudio {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file (no RIFF/WAVE header)');
  }
  let format: { code: number; channels: number; sampleRate: number; bits: number } | null = null;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      let code = file.readUInt16LE(body);
      if (code === 0xfffe && size >= 26) code = file.readUInt16LE(body + 24); // WAVE_FORMAT_EXTENSIBLE: the sub-format's code
      format = { code, channels: file.readUInt16LE(body + 2), sampleRate: file.readUInt32LE(body + 4), bits: file.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data before its format');
      // Streamed WAVs (eSpeak's, for one) leave the size unset: the data runs to the end.
      const end = Math.min(file.length, size === 0 || size === 0xffffffff ? file.length : body + size);
      return {
        sampleRate: format.sampleRate,
        channels: format.channels,
        samples: toInt16(file.subarray(body, end), format.code, format.bits),
      };
    }
    at = body + size + (size % 2);
  }
  throw new Error('WAV file without a data chunk');
}

function toInt16(data: Buffer, code: number, bits: number): Int16Array {
  const bytes = bits / 8;
  const count = Math.floor(data.length / bytes);
  const out = new Int16Array(count);
  const clamp = (v: number) => Math.max(-32768, Math.min(32767, Math.round(v)));
  for (let i = 0; i < count; i += 1) {
    const at = i * bytes;
    if (code === 3 && bits === 32) out[i] = clamp(data.readFloatLE(at) * 32767);
    else if (code !== 1) throw new Error(`unsupported WAV encoding (format ${code}, ${bits} bits): use PCM or 32-bit float`);
    else if (bits === 16) out[i] = data.readInt16LE(at);
    else if (bits === 8) out[i] = (data.readUInt8(at) - 128) << 8;
    else if (bits === 24) out[i] = data.readIntLE(at, 3) >> 8;
    else if (bits === 32) out[i] = data.readInt32LE(at) >> 16;
    else throw new Error(`unsupported WAV sample size: ${bits} bits`);
  }
  return out;
}

export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  const dataBytes = samples.length * 2;
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, dataBytes)]);
}
