// A module handler for the conformance catalog: three progress reports, 50 ms apart, then the answer.
export async function progress(args, context) {
  for (const step of ['started', 'half way', 'finishing']) {
    context.progress(step);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'done in three steps';
}
