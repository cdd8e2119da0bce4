/**
 * Maps a field path in a parsed YAML document back to line:column, so that every spec error
 * names the file, the position and the field, e.g.
 * `pipeline.yaml:7:5: flows.load_orders.target: "lake.ordrs" is not a table …`.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { InvalidInputError } from '../errors.js';
import { formatFieldPath, type FieldPath } from './field-path.js';

export { formatFieldPath, type FieldPath } from './field-path.js';

export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** Whether a position should point at a mapping key (`mode:`) or at its value. */
export type PositionTarget = 'key' | 'value';

export interface SpecProblem {
  readonly path: FieldPath;
  readonly message: string;
  readonly target?: PositionTarget;
}

export class YamlLocator {
  constructor(
    readonly sourceName: string,
    private readonly document: Document.Parsed,
    private readonly lineCounter: LineCounter,
  ) {}

  /** The data of the document as plain JS (integers as bigint, so large numbers stay exact). */
  data(): unknown {
    return this.document.toJS({ maxAliasCount: 100 });
  }

  /**
   * Position of the node at `path`. When the path leads to nothing (a missing field), the
   * nearest existing ancestor's key is used, which is where the field would have to be added.
   */
  position(path: FieldPath, target: PositionTarget = 'value'): SourcePosition {
    let node: unknown = this.document.contents;
    let fallback = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (pair === undefined) return this.at(fallback);
        const keyOffset = rangeStart(pair.key) ?? fallback;
        if (i === path.length - 1 && target === 'key') return this.at(keyOffset);
        // `key:` with nothing after it: point at the key, not at the empty spot after it.
        if (pair.value === null || pair.value === undefined || isEmptyNode(pair.value)) return this.at(keyOffset);
        node = pair.value;
        fallback = keyOffset;
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
        node = node.items[segment];
        fallback = rangeStart(node) ?? fallback;
      } else {
        return this.at(fallback);
      }
    }
    return this.at(rangeStart(node) ?? fallback);
  }

  /** One InvalidInputError for one or more problems, the first in file order leading. */
  error(problems: readonly SpecProblem[]): InvalidInputError {
    const located = problems
      .map((problem) => ({ problem, at: this.position(problem.path, problem.target) }))
      .sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
    const lines = located.map(({ problem, at }) => {
      const field = formatFieldPath(problem.path);
      return `${this.sourceName}:${at.line}:${at.column}: ${field === '' ? '' : `${field}: `}${problem.message}`;
    });
    const first = located[0];
    return new InvalidInputError(lines.join('\n'), {
      context: {
        file: this.sourceName,
        line: first?.at.line,
        column: first?.at.column,
        field: first === undefined ? undefined : formatFieldPath(first.problem.path),
      },
    });
  }

  private at(offset: number): SourcePosition {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }
}

function isEmptyNode(node: unknown): boolean {
  const range = (node as Node).range;
  return range !== undefined && range !== null && range[0] === range[1];
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range === undefined || range === null ? undefined : range[0];
}

/**
 * Parses YAML text into a locator. YAML syntax errors (including duplicate keys) become an
 * InvalidInputError naming `sourceName:line:column`.
 */
export function parseYaml(text: string, sourceName: string): YamlLocator {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, intAsBigInt: true, uniqueKeys: true });
  const syntaxError = document.errors[0];
  if (syntaxError !== undefined) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
    const reason = syntaxError.message.split('\n')[0] ?? syntaxError.message;
    return failSyntax(`${sourceName}:${line}:${col}: YAML syntax error: ${reason}`, sourceName, line, col, syntaxError);
  }
  return new YamlLocator(sourceName, document, lineCounter);
}

function failSyntax(message: string, file: string, line: number, column: number, cause: unknown): never {
  throw new InvalidInputError(message, { cause, context: { file, line, column } });
}
