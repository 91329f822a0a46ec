import { LocalAdmission, StreamBudget } from './stream-budget';

describe('StreamBudget', () => {
  it.each([1, 2, 4])('with capacity %i, the next stream gets captions only and the load reaches 1', (capacity) => {
    const budget = new StreamBudget(capacity);
    const ids = Array.from({ length: capacity + 2 }, (_, i) => `s${i}`);
    const services = ids.map((id) => budget.admit(id));
    expect(services).toEqual([...Array(capacity).fill('full'), 'captions', 'captions']);
    expect(budget.streams).toEqual({ full: capacity, captions: 2 });
    expect(budget.load).toBeCloseTo((capacity + 2) / capacity);
    budget.release(ids[capacity]!);
    budget.release(ids[capacity + 1]!);
    expect(budget.load).toBe(1);
  });

  it('answers the same for a stream asked twice, and promotes the oldest captions-only stream when a full one ends', () => {
    const budget = new StreamBudget(1);
    expect(budget.admit('a')).toBe('full');
    expect(budget.admit('b')).toBe('captions');
    expect(budget.admit('c')).toBe('captions');
    expect(budget.admit('a')).toBe('full');
    expect(budget.release('b')).toBeNull(); // a captions-only stream frees no full place
    expect(budget.release('a')).toBe('c');
    expect(budget.streams).toEqual({ full: 1, captions: 0 });
    expect(budget.release('c')).toBeNull();
    expect(budget.load).toBe(0);
  });

  it('refuses a capacity below one stream', () => {
    expect(() => new StreamBudget(0)).toThrow('at least 1');
  });

  it('LocalAdmission tells its listeners which stream was promoted', async () => {
    const admission = new LocalAdmission(new StreamBudget(1));
    const promoted: string[] = [];
    admission.onPromote((id) => promoted.push(id));
    await expect(admission.admit('a')).resolves.toBe('full');
    await expect(admission.admit('b')).resolves.toBe('captions');
    admission.release('a');
    expect(promoted).toEqual(['b']);
  });
});
