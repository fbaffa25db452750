// Lint rules from ARCHITECTURE.md: small functions, shallow nesting, few parameters, and no promise
// left floating (an unawaited write is a lost error).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The package test's user project is plain JavaScript on purpose (Node 20 runs it): a user's code.
  { ignores: ['node_modules/', 'dist/', '.build/', 'coverage/', 'test/testdata/package-user/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      complexity: ['error', 10],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `_name` marks a value taken out on purpose (destructuring to omit a field).
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }],
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
