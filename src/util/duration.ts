/** Go-style durations (`500ms`, `2s`, `1m30s`, `1.5h`), as AvalancheGo's flags take them (time.ParseDuration). */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const PART_RE = /([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses a Go duration to milliseconds; throws a short reason on bad input. */
export function parseDuration(s: string): number {
  const text = s.trim();
  if (text === "0") return 0;
  if (text === "") throw new Error("empty duration");
  let sign = 1;
  let i = 0;
  if (text[0] === "-" || text[0] === "+") {
    sign = text[0] === "-" ? -1 : 1;
    i = 1;
  }
  let total = 0;
  let parts = 0;
  while (i < text.length) {
    PART_RE.lastIndex = i;
    const m = PART_RE.exec(text);
    if (!m || m[1] === "" || m[1] === ".")
      throw new Error(`invalid duration ${JSON.stringify(s)} (examples: 500ms, 2s, 1m30s)`);
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    i = PART_RE.lastIndex;
    parts++;
  }
  if (parts === 0) throw new Error(`invalid duration ${JSON.stringify(s)}`);
  return sign * total;
}

/** Formats milliseconds as a Go duration string (`1m30s`, `250ms`, `1.5µs`), for health messages and config. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1) {
    const us = rest * 1000;
    out = us < 1 ? `${trim(us * 1000)}ns` : `${trim(us)}µs`;
  } else if (rest < 1000) {
    out = `${trim(rest)}ms`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    out = `${h > 0 ? `${h}h` : ""}${h > 0 || m > 0 ? `${m}m` : ""}${trim(rest / 1000)}s`;
  }
  return neg ? `-${out}` : out;
}

function trim(n: number): string {
  return String(Number(n.toFixed(9)));
}
