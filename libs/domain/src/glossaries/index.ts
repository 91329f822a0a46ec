export * from './glossary-entries';
export * from './compiled-glossary';
export * from './glossary-matcher';
