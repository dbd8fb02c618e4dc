// Types of import-cycles.js (plain JavaScript, as eslint.config.js loads it without a compiler).
import type { ESLint, Rule } from 'eslint';

export function resolveImport(fromFile: string, specifier: string): string | undefined;
export function forgetImportGraph(): void;
export const noImportCycle: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
