import { agreementWith, wordShare } from './agreement';

describe('agreement with sentence mode', () => {
  // LibriVox 0920 before the recognizer lost its second pass: what simultaneous mode said, and sentence mode.
  const sentence = 'Tuvo casó una mujer más amable podría haber sido hecho aún más respetable muchos vatios';
  const simultaneous = 'Addie Casado un más mujer amable en mi jefa aquello hizo aún más respetable muchos vatios';

  it("is the share of the translation's words that sentence mode's translation has, whatever their order or case", () => {
    expect(wordShare('una mujer más amable', 'Mujer amable, una más.')).toBe(1);
    // más, mujer, amable, aún, más, respetable, muchos, vatios: 8 of its 16 words.
    expect(wordShare(sentence, simultaneous)).toBe(0.5);
  });

  it('counts a word of the reference once: repeating it does not agree more', () => {
    expect(wordShare('no fue', 'no no no fue')).toBe(0.5);
  });

  it('is complete for an empty translation and nothing for one sharing no word', () => {
    expect(wordShare('hombre joven', '')).toBe(1);
    expect(wordShare('hombre joven', 'perro viejo')).toBe(0);
  });

  it('gives the share and chrF, rounded', () => {
    expect(agreementWith(sentence, sentence)).toEqual({ word_share: 1, chrf: 100 });
    const partial = agreementWith(sentence, simultaneous);
    expect(partial.word_share).toBe(0.5);
    expect(partial.chrf).toBeGreaterThan(0);
    expect(partial.chrf).toBeLessThan(100);
  });
});
