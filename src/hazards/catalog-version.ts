/**
 * The hazard catalog's own version, apart from the package's: a launch that lint passed under one
 * catalog can fail under the next, so `faultline --version` names it and CHANGELOG.md's catalog
 * section records what each one added or changed. Format YYYY.MM.N; bump it with every change to
 * what a hazard matches (a new hazard, a condition, a version bound).
 */
export const CATALOG_VERSION = '2026.12.1';
