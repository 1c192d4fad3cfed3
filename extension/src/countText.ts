/**
 * Numbers as the extension writes them for people: "1,234 tasks", "1 error". One formatter for
 * every view and notice, made on first use, because creating it loads locale data that the
 * extension's activation need not wait for.
 */
let numbers: Intl.NumberFormat | undefined;

/** `n` with thousands separators. */
export function formatCount(n: number): string {
  numbers ??= new Intl.NumberFormat('en-US');
  return numbers.format(n);
}

/** `n` and the noun, plural unless `n` is 1: "1 task", "2,500 tasks". */
export function count(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}
