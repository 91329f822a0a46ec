export * from './glossary-entries';
export * from './compiled-glossary';
export * from './glossary-matcher';
export * from './sounds-like';
export * from './protected-terms';
export * from './glossary-csv';
export * from './phrase-starts';
export * from './glossary-text-bytes';
