/**
 * chrF (Popović 2015): the F-score of character n-grams (n = 1..6, spaces left out) of a hypothesis
 * against a reference, recall weighted twice (β = 2), 0..100. The bench compares simultaneous mode's
 * chunked translation with sentence mode's this way: how much chunking changes what the listener hears.
 */
const MAX_N = 6;
const BETA = 2;

function ngrams(text: string, n: number): Map<string, number> {
  const chars = [...text.replace(/\s+/g, '')];
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= chars.length; i += 1) {
    const gram = chars.slice(i, i + n).join('');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

export function chrF(reference: string, hypothesis: string): number {
  let precision = 0;
  let recall = 0;
  let orders = 0;
  for (let n = 1; n <= MAX_N; n += 1) {
    const ref = ngrams(reference, n);
    const hyp = ngrams(hypothesis, n);
    const refTotal = [...ref.values()].reduce((a, b) => a + b, 0);
    const hypTotal = [...hyp.values()].reduce((a, b) => a + b, 0);
    if (refTotal === 0 || hypTotal === 0) continue;
    let common = 0;
    for (const [gram, count] of hyp) common += Math.min(count, ref.get(gram) ?? 0);
    precision += common / hypTotal;
    recall += common / refTotal;
    orders += 1;
  }
  if (orders === 0) return reference.trim() === hypothesis.trim() ? 100 : 0;
  precision /= orders;
  recall /= orders;
  if (precision + recall === 0) return 0;
  return (100 * (1 + BETA ** 2) * precision * recall) / (BETA ** 2 * precision + recall);
}
