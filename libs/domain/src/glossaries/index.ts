export * from './glossary-entries';
