import { VersionedCache } from './versioned-cache';

describe('VersionedCache', () => {
  it('serves an entry only for the version it was stored with', () => {
    const cache = new VersionedCache(1000);
    cache.set('k', '7', 'body at 7');
    expect(cache.get('k', '7')).toBe('body at 7');
    expect(cache.get('k', '8')).toBeNull();
    expect(cache.get('other', '7')).toBeNull();
    cache.set('k', '8', 'body at 8');
    expect(cache.get('k', '7')).toBeNull();
    expect(cache.get('k', '8')).toBe('body at 8');
  });

  it('evicts the least recently used entries once it holds more than its byte budget', () => {
    const cache = new VersionedCache(10);
    cache.set('a', '1', 'aaaa');
    cache.set('b', '1', 'bbbb');
    expect(cache.get('a', '1')).toBe('aaaa'); // a is now the most recently used
    cache.set('c', '1', 'cccc'); // 12 bytes: b goes
    expect(cache.get('b', '1')).toBeNull();
    expect(cache.get('a', '1')).toBe('aaaa');
    expect(cache.get('c', '1')).toBe('cccc');
  });

  it('never keeps a body larger than the whole budget, and replacing a key frees its old bytes', () => {
    const cache = new VersionedCache(10);
    cache.set('big', '1', 'x'.repeat(11));
    expect(cache.get('big', '1')).toBeNull();
    cache.set('a', '1', 'aaaaaaaa');
    cache.set('a', '2', 'aaaaaaaa');
    cache.set('b', '1', 'bb');
    expect(cache.get('a', '2')).toBe('aaaaaaaa');
    expect(cache.get('b', '1')).toBe('bb');
  });
});
