"""Streaming speech recognition with PocketSphinx, one long-lived process per audio track.

stdin: 16 kHz mono signed 16-bit little-endian PCM, as it arrives.
stdout: one JSON object per line:
  {"type": "ready"}
  {"type": "start", "at": <seconds of audio>}                        speech began (PocketSphinx's VAD)
  {"type": "partial", "text": "...", "at": s, "words": [...]}         the hypothesis so far, every --partial-every
                                                                      seconds of speech (decoded up to `at`)
  {"type": "end", "text": "...", "at": s, "words": [...]}             speech ended (trailing silence): the
                                                                      hypothesis as decoded, before the utterance ends
  {"type": "final", "text": "...", "start": s, "end": s, "words": [...]}  the utterance once ended (also when the
                                                                      input ends mid-utterance, without "end")
Audio positions are seconds since the first byte of stdin. The model paths come from the
arguments: --hmm DIR --lm FILE --dict FILE.
"""
import argparse
import json
import os
import sys

from pocketsphinx import Decoder

RATE = 16000
FRAME_RATE = 100  # PocketSphinx's default: 100 feature frames per second
CHUNK = RATE * 2 // 20  # 50 ms blocks


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hmm", required=True)
    parser.add_argument("--lm", required=True)
    parser.add_argument("--dict", required=True)
    parser.add_argument("--partial-every", type=float, default=0.3, help="seconds of audio between partial hypotheses")
    args = parser.parse_args()

    config = Decoder.default_config()
    config.set_string("-hmm", args.hmm)
    config.set_string("-lm", args.lm)
    config.set_string("-dict", args.dict)
    config.set_string("-logfn", os.devnull)
    # Digital silence (a muted track, the padding of a file) has no noise floor: without dither the
    # noise estimate and cepstral mean go astray and the next utterance is misrecognized.
    config.set_boolean("-dither", True)
    config.set_int("-seed", 1)  # the same audio gives the same words
    # At the default 2.0 the noise of a quiet line starts an empty "utterance" whose end updates the
    # cepstral mean with silence, and the next real one comes out as nonsense.
    config.set_float("-vad_threshold", 3.5)
    # No second pass at the end of an utterance (flat-lexicon rescoring, then the lattice's best path):
    # the final is the forward search the partial hypotheses come from, so the words simultaneous mode
    # translated while the speaker went on are the words the transcript keeps. On Debian's LibriVox
    # clips the passes make as many errors (26 of 71 words either way), but the second rewrote words
    # every partial had agreed on ("addie married" → "had he married") after they were spoken; it also
    # took ≈ 0.9 s of CPU at the end of a 23 s turn.
    config.set_boolean("-fwdflat", False)
    config.set_boolean("-bestpath", False)
    decoder = Decoder(config)

    consumed = 0  # samples fed so far
    in_utterance = False
    last_partial = ""
    last_partial_at = 0
    pending = b""
    decoder.start_utt()
    emit({"type": "ready"})

    stdin = sys.stdin.buffer
    while True:
        chunk = stdin.read1(CHUNK)
        if not chunk:
            break
        pending += chunk
        # Fixed-size blocks, whatever the arrival timing: the same audio always gives the same words.
        while len(pending) >= CHUNK:
            data, pending = pending[:CHUNK], pending[CHUNK:]
            in_utterance, last_partial, last_partial_at = step(
                decoder, data, consumed, in_utterance, last_partial, last_partial_at, args.partial_every)
            consumed += CHUNK // 2
    if len(pending) >= 2:
        data = pending[: len(pending) - len(pending) % 2]
        in_utterance, last_partial, last_partial_at = step(
            decoder, data, consumed, in_utterance, last_partial, last_partial_at, args.partial_every)
    finish(decoder, emit_empty=in_utterance)


def step(decoder, data, consumed, in_utterance, last_partial, last_partial_at, partial_every):
    """Feeds one block; emits start / partial / final as PocketSphinx's voice activity detection says."""
    decoder.process_raw(data, False, False)
    consumed += len(data) // 2
    speaking = decoder.get_in_speech()
    if speaking and not in_utterance:
        in_utterance = True
        last_partial, last_partial_at = "", consumed
        emit({"type": "start", "at": round(consumed / RATE, 3)})
    elif speaking and consumed - last_partial_at >= partial_every * RATE:
        last_partial_at = consumed
        text = hypothesis_text(decoder)
        # Also when unchanged: a hypothesis that stays the same while the audio goes on is what makes
        # its words stable and shows a pause after them (simultaneous translation commits on that).
        if text:
            last_partial = text
            emit({"type": "partial", "text": text, "at": round(consumed / RATE, 3), "words": words_of(decoder)})
    elif not speaking and in_utterance:
        # The final pass over a long utterance takes most of a second: what was decoded so far goes out
        # first, so a simultaneous translation can speak its last words meanwhile.
        emit({"type": "end", "text": hypothesis_text(decoder), "at": round(consumed / RATE, 3), "words": words_of(decoder)})
        finish(decoder)
        in_utterance = False
        decoder.start_utt()
    return in_utterance, last_partial, last_partial_at


def hypothesis_text(decoder):
    """The best hypothesis so far (or the utterance's, after end_utt), "" when there is none."""
    hyp = decoder.hyp()
    return hyp.hypstr.strip() if hyp else ""


def words_of(decoder):
    """The best path's words with their times (silences and fillers left out), mid-utterance too."""
    words = []
    for seg in decoder.seg():
        if seg.word.startswith("<") or seg.word.startswith("["):
            continue
        words.append({
            "word": seg.word.split("(")[0],
            # Frame numbers count from the decoder's first audio, not from the utterance's start.
            "start": round(seg.start_frame / FRAME_RATE, 3),
            "end": round(seg.end_frame / FRAME_RATE, 3),
        })
    return words


def finish(decoder, emit_empty=True):
    decoder.end_utt()
    text = hypothesis_text(decoder)
    words = words_of(decoder)
    if text or emit_empty:
        emit({
            "type": "final",
            "text": text,
            "start": words[0]["start"] if words else None,
            "end": words[-1]["end"] if words else None,
            "words": words,
        })


if __name__ == "__main__":
    main()
