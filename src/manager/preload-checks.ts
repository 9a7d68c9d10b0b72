// `toolman validate` loads the checks with the command rather than when the manager first
// validates: one round of module loading instead of two, which is measurable in a cold start.
import '../validate/validate-catalog.js';
