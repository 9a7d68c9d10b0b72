import { Box, Text } from 'ink';
import { createContext, useContext, useMemo } from 'react';
import { markdownLines, type MarkdownLine } from './markdown.js';
import { displayText } from './terminal-text.js';

/** The terminal's width, for what lays itself out (Markdown tables and code blocks). */
const WidthContext = createContext(80);
export const WidthProvider = WidthContext.Provider;

/** The columns the current part of the screen has (the terminal's, less what encloses it where that is known). */
export function useWidth(): number {
  return useContext(WidthContext);
}

/**
 * A model's answer as Markdown laid out for the terminal (markdown.ts); as plain text until
 * marked has loaded, or for an answer too long to lay out. The layout is kept while only the
 * spinner ticks: it is redone when the text, the width or colour change.
 */
export function MarkdownText({ text, color }: { text: string; color: boolean }) {
  const width = useContext(WidthContext);
  const lines = useMemo(() => markdownLines(text, { width, color }), [text, width, color]);
  if (!lines) return <Text>{displayText(text)}</Text>;
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        <Line key={i} line={line} />
      ))}
    </Box>
  );
}

function Line({ line }: { line: MarkdownLine }) {
  if (line.length === 0) return <Text> </Text>;
  // Every line fits the width already; truncate-end only keeps a rounding from wrapping a border.
  return (
    <Text wrap="truncate-end">
      {line.map((span, i) =>
        span.style ? (
          <Text key={i} bold={span.style.bold ?? false} italic={span.style.italic ?? false} underline={span.style.underline ?? false} strikethrough={span.style.strikethrough ?? false} dimColor={span.style.dim ?? false} {...(span.style.color ? { color: span.style.color } : {})}>
            {span.text}
          </Text>
        ) : (
          span.text
        ),
      )}
    </Text>
  );
}
