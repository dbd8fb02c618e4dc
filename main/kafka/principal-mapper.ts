/**
 * The principal of a TLS client certificate, as Kafka's DefaultKafkaPrincipalBuilder and
 * SslPrincipalMapper make it: the certificate's subject as an RFC 2253 distinguished name
 * (X500Principal.getName: the relative names last first, comma-separated, values escaped), then
 * the first `ssl.principal.mapping.rules` rule that applies:
 *
 *   rules := rule ( , rule )*        rule := DEFAULT | RULE:pattern/replacement/[L|U]
 *
 * DEFAULT keeps the whole name; a RULE applies when its pattern (a regular expression) matches the
 * whole name, which then becomes the replacement ($1… are the pattern's groups; a reference to a
 * group it does not have drops digits from the right, then stays literal, as Kafka's
 * escapeLiteralBackReferences does), in lower (L) or upper (U) case. No rule applying fails the
 * connection (Kafka's NoMatchingRule); a rule that does not parse is refused at start.
 */

/** One parsed rule. */
type Rule = { kind: 'default' } | { kind: 'rule'; pattern: RegExp; source: string; replacement: string; caseChange: '' | 'L' | 'U' };

const RULE_PATTERN = String.raw`(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`;

export class PrincipalMapper {
  private readonly rules: Rule[];

  constructor(readonly text = 'DEFAULT') {
    this.rules = parseRules(splitRules(text));
  }

  /** The user name of a distinguished name (the principal is `User:` + it); throws when no rule applies. */
  nameOf(distinguishedName: string): string {
    for (const r of this.rules) {
      if (r.kind === 'default') return distinguishedName;
      const m = r.pattern.exec(distinguishedName);
      if (!m) continue;
      const groups = m.length - 1;
      let out = expand(r.replacement, m, groups);
      if (r.caseChange === 'L') out = out.toLowerCase();
      else if (r.caseChange === 'U') out = out.toUpperCase();
      return out;
    }
    throw new Error(`No rules apply to ${distinguishedName}, rules [${this.text}]`);
  }
}

function splitRules(text: string): string[] {
  const splitter = new RegExp(String.raw`\s*(${RULE_PATTERN})\s*(,\s*|$)`, 'g');
  const out: string[] = [];
  const s = text.trim();
  let m: RegExpExecArray | null;
  while ((m = splitter.exec(s)) !== null) {
    out.push(m[1]!);
    if (m[0].length === 0) {
      if (splitter.lastIndex >= s.length) break;
      splitter.lastIndex++;
    }
  }
  return out;
}

function parseRules(rules: string[]): Rule[] {
  const parser = new RegExp(`^(?:${RULE_PATTERN})`);
  const out: Rule[] = [];
  for (const rule of rules) {
    const m = parser.exec(rule)!;
    if (rule.length !== m[0].length) throw new Error(`Invalid rule: \`${rule}\`, unmatched substring: \`${rule.slice(m[0].length)}\``);
    if (m[1] !== undefined) out.push({ kind: 'default' });
    else if (m[2] !== undefined) {
      out.push({ kind: 'rule', pattern: new RegExp(`^(?:${m[2]})$`), source: m[2], replacement: m[4] ?? '', caseChange: (m[6] ?? '') as '' | 'L' | 'U' });
    }
  }
  return out;
}

/** Java's Matcher replacement syntax: `$n` a group, `\x` a literal x. */
function expand(replacement: string, m: RegExpExecArray, groups: number): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === '\\' && i + 1 < replacement.length) {
      out += replacement[++i];
      continue;
    }
    if (c !== '$' || !/\d/.test(replacement[i + 1] ?? '')) {
      out += c;
      continue;
    }
    let digits = /^\d+/.exec(replacement.slice(i + 1))![0];
    while (Number(digits) > groups && digits.length > 1) digits = digits.slice(0, -1);
    if (Number(digits) > groups) {
      out += c;
      continue;
    }
    out += m[Number(digits)] ?? '';
    i += digits.length;
  }
  return out;
}

/**
 * A certificate subject as Node prints it (one `type=value` per line, most significant first,
 * values escaped as RFC 2253 has them) in RFC 2253's order: last first, comma-separated.
 */
export function distinguishedName(subject: string): string {
  return subject
    .split('\n')
    .filter((l) => l.length > 0)
    .reverse()
    .join(',');
}
