import {
  decideModeForToken,
  isStreamingMode,
  languagesRequired,
  modeForLanguageCount,
  RoomModeMismatch,
  type StreamingMode,
} from './streaming-mode';

describe('modeForLanguageCount', () => {
  it.each<[number, StreamingMode]>([
    [2, 'mono'],
    [1, 'dual'],
  ])('%i languages → %s', (count, mode) => {
    expect(modeForLanguageCount(count)).toBe(mode);
  });

  it.each([0, 3, 1.5])('rejects %d', (count) => {
    expect(() => modeForLanguageCount(count)).toThrow(RangeError);
  });
});

describe('languagesRequired', () => {
  it.each<[StreamingMode | null, number | null]>([
    ['dual', 1],
    ['mono', 2],
    [null, null],
  ])('%s → %s', (mode, required) => {
    expect(languagesRequired(mode)).toBe(required);
  });
});

describe('decideModeForToken', () => {
  it.each<[StreamingMode | null, number, StreamingMode, boolean]>([
    [null, 2, 'mono', true],
    [null, 1, 'dual', true],
    ['mono', 2, 'mono', false],
    ['dual', 1, 'dual', false],
  ])('room %s, %i languages → %s (changed %s)', (current, count, mode, changed) => {
    expect(decideModeForToken(current, count)).toEqual({ mode, changed });
  });

  it.each<[StreamingMode, number, string]>([
    ['dual', 2, 'This room is in dual mode, so a participant must send 1 language, not 2.'],
    ['mono', 1, 'This room is in mono mode, so a participant must send 2 languages, not 1.'],
  ])('room %s refuses %i languages', (current, count, message) => {
    const act = () => decideModeForToken(current, count);
    expect(act).toThrow(RoomModeMismatch);
    expect(act).toThrow(message);
  });

  it('names the mismatch code', () => {
    expect(new RoomModeMismatch('dual', 2).code).toBe('room_mode_mismatch');
  });
});

describe('isStreamingMode', () => {
  it.each([
    ['mono', true],
    ['dual', true],
    ['stereo', false],
    [undefined, false],
  ])('%j → %s', (value, expected) => {
    expect(isStreamingMode(value)).toBe(expected);
  });
});
