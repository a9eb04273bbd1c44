// Lint: typescript-eslint's recommended rules, plus the type-aware rules that catch real bugs in an
// asynchronous, reactive codebase. Formatting is Prettier's job (eslint-config-prettier turns style rules off).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'docs/api/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        // Plain .mjs/.cjs scripts join a default project; a dozen small files cost the lint little.
        projectService: {
          allowDefaultProject: [
            'eslint.config.js',
            'spec/soak/soak.mjs',
            'spec/package/*.mjs',
            'spec/package/fixture/*.?js',
            'spec/apiserver/apimachinery/protobuf/*.mjs',
            'src/apiserver/apimachinery/protobuf/*.mjs',
          ],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  // Plain Node scripts: Node's globals.
  {
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        queueMicrotask: 'readonly',
        AbortController: 'readonly',
      },
    },
  },
  // CommonJS consumers (the packaging test's require(esm) check).
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
