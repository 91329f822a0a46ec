import { chrF } from './chrf';

describe('chrF', () => {
  it('is 100 for the same text (spaces aside) and 0 for texts sharing no character', () => {
    expect(chrF('hombre joven', 'hombre joven')).toBeCloseTo(100, 6);
    expect(chrF('hombre joven', 'hombrejoven')).toBeCloseTo(100, 6);
    expect(chrF('abc', 'xyz')).toBe(0);
  });

  it('weighs recall twice: leaving words out costs more than adding some', () => {
    const reference = 'no fue un hombre joven mal dispuesto';
    const shorter = chrF(reference, 'no fue un hombre');
    const longer = chrF(reference, 'no fue un hombre joven mal dispuesto aquel día');
    expect(shorter).toBeLessThan(longer);
    expect(longer).toBeLessThan(100);
  });
});
