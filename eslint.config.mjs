// ESLint for the browser pages' ES modules (web/js/**/*.js): `make lint` runs it, with TypeScript's
// checkJs (tsconfig.json) for the JSDoc types.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/**", ".venv/**", ".aws-sam/**"] },
  {
    files: ["web/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", caughtErrors: "none" }],
      "eqeqeq": ["error", "always", { null: "ignore" }],
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "error",
      "no-implied-eval": "error",
      "no-eval": "error",
      "no-new-func": "error",
      "no-script-url": "error",
      "no-alert": "error",
      "no-console": ["error", { allow: ["warn", "error"] }],
      "no-use-before-define": ["error", { functions: false, classes: true, variables: false }],
      "no-throw-literal": "error",
      "no-return-assign": "error",
      "no-self-compare": "error",
      "no-unmodified-loop-condition": "error",
      "no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      "no-useless-concat": "error",
      "no-useless-return": "error",
      "prefer-promise-reject-errors": "error",
      "radix": "error",
    },
  },
];
