import { describe, expect, it } from 'vitest';
import { bootstrapList, clientSnippets } from './client-snippets.js';

const BS = '127.0.0.1:9092,127.0.0.1:9093,127.0.0.1:9094';

describe('client snippets for the Overview', () => {
  it('gives kcat, Java, Python and Node snippets, each naming every bootstrap server, the topic and the group', () => {
    const snippets = clientSnippets(BS, 'orders', 'billing');
    expect(snippets.map((s) => s.label)).toEqual(['kcat', 'Java', 'Python', 'Node']);
    const [kcat, java, python, node] = snippets.map((s) => s.code);
    expect(kcat).toContain(`kcat -b ${BS} -L`);
    expect(kcat).toContain(`kcat -b ${BS} -G billing orders`);
    expect(java).toContain(`"bootstrap.servers", "${BS}"`);
    expect(java).toContain('"group.id", "billing"');
    expect(python).toContain("bootstrap_servers=['127.0.0.1:9092', '127.0.0.1:9093', '127.0.0.1:9094']");
    expect(python).toContain('group_id="billing"');
    expect(node).toContain('brokers: ["127.0.0.1:9092", "127.0.0.1:9093", "127.0.0.1:9094"]');
    expect(node).toContain('groupId: "billing"');
  });

  it('quotes a topic name the shell would split or expand, and escapes quotes inside code strings', () => {
    const [kcat, java] = clientSnippets(BS, "it's $HOME").map((s) => s.code);
    expect(kcat).toContain(`-t 'it'\\''s $HOME' -P`);
    expect(java).toContain('"it\'s $HOME"');
    expect(clientSnippets(BS, 'a"b')[1]!.code).toContain('"a\\"b"');
  });

  it('offers nothing for a host that serves no Kafka protocol (an empty bootstrap string)', () => {
    expect(clientSnippets('', 'orders')).toEqual([]);
    expect(bootstrapList(' 127.0.0.1:1 , ,127.0.0.1:2')).toEqual(['127.0.0.1:1', '127.0.0.1:2']);
  });
});
