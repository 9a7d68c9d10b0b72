/**
 * The facade's readers of a conversation's files, for drivers: recordings (`--replay`, a suite's
 * recordings) and where transcripts go. Apart from documents.ts, whose suite and schema
 * validators (about 400 KB of code with ajv) `chat` has no use for.
 */
export { readRecording } from '../loop/recording.js';
export { defaultTranscriptPath } from '../loop/transcript.js';
