/**
 * Just enough of Python's lexical structure for single-token mutations: which characters of each
 * source line are code (not strings, comments or docstrings), and the tokens found there. Lines
 * are scanned in order so triple-quoted strings spanning lines are recognised.
 */

export interface Token {
  kind: 'name' | 'number' | 'op' | 'string';
  text: string;
  /** Column of the first character in the line. */
  col: number;
}

/** Tokens of each line; `open` carries a triple-quote delimiter from one line to the next. */
export function tokeniseLines(lines: readonly string[]): Token[][] {
  let open: string | undefined;
  return lines.map((line) => {
    const tokens: Token[] = [];
    let i = 0;
    if (open !== undefined) {
      const close = line.indexOf(open);
      if (close < 0) return tokens;
      i = close + 3;
      open = undefined;
    }
    while (i < line.length) {
      const ch = line[i] ?? '';
      if (ch === '#') break;
      if (/\s/.test(ch)) {
        i++;
        continue;
      }
      const str = /^([rbfuRBFU]{0,2})('''|"""|'|")/.exec(line.slice(i));
      if (str && (str[1] === '' || /[A-Za-z]/.test(ch))) {
        const quote = str[2] ?? '"';
        const bodyStart = i + str[0].length;
        let j = bodyStart;
        let closed = false;
        while (j < line.length) {
          if (line[j] === '\\') {
            j += 2;
            continue;
          }
          if (line.startsWith(quote, j)) {
            closed = true;
            j += quote.length;
            break;
          }
          j++;
        }
        if (!closed && quote.length === 3) open = quote;
        tokens.push({ kind: 'string', text: line.slice(i, j), col: i });
        i = j;
        continue;
      }
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(i));
      if (name) {
        tokens.push({ kind: 'name', text: name[0], col: i });
        i += name[0].length;
        continue;
      }
      const number = /^(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?|\.\d+)/.exec(line.slice(i));
      if (number) {
        tokens.push({ kind: 'number', text: number[0], col: i });
        i += number[0].length;
        continue;
      }
      const op = /^(?:\*\*=|\/\/=|>>=|<<=|\*\*|\/\/|==|!=|<=|>=|->|\+=|-=|\*=|\/=|%=|:=|<<|>>|[-+*/%<>=()[\]{}:,.;@&|^~!])/.exec(line.slice(i));
      const text = op ? op[0] : ch;
      tokens.push({ kind: 'op', text, col: i });
      i += text.length;
    }
    return tokens;
  });
}

/** Whether a token ends an operand, so that a following `+`/`-` is binary. */
export function endsOperand(token: Token | undefined): boolean {
  if (token === undefined) return false;
  if (token.kind === 'number' || token.kind === 'string') return true;
  if (token.kind === 'name') return !['and', 'or', 'not', 'in', 'is', 'return', 'if', 'elif', 'while', 'else', 'lambda', 'yield', 'await'].includes(token.text);
  return token.text === ')' || token.text === ']' || token.text === '}';
}
