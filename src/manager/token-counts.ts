/**
 * The facade's token counting, for drivers that count requests of their own (`toolman tokens`,
 * a suite's cost estimate, the REPL's status line): loaded only by them, since the tokenizers are
 * the heaviest part of toolman.
 */
export { countDefinitions } from '../tokens/count-payload.js';
export { countRequest } from '../tokens/count-request.js';
export { requestShapeRefusal } from '../tokens/request-shape.js';
export { exactCounter } from '../providers/exact-count.js';
