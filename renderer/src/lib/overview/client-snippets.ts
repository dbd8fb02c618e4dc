/**
 * Ready-to-paste Kafka client snippets for the cluster's bootstrap string: kcat, the Java client,
 * kafka-python and kafkajs, each producing a record to `topic` and reading it back in consumer
 * group `groupId`. They say only what the cluster serves: plaintext on 127.0.0.1, idempotent
 * acks=all producers, classic consumer groups; no transactions. They name a topic that exists,
 * though a producer naming a missing one creates it where auto.create.topics.enable allows.
 */

export interface ClientSnippet {
  id: 'kcat' | 'java' | 'python' | 'node';
  /** The tab's label. */
  label: string;
  /** The file the snippet would be saved as (CodeBox's name and download). */
  filename: string;
  code: string;
}

/** `127.0.0.1:9092,127.0.0.1:9093` → its host:port entries. */
export function bootstrapList(bootstrapServers: string): string[] {
  return bootstrapServers
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const quoted = (s: string): string => JSON.stringify(s);
/** A single-quoted shell word (topic and group names may hold characters the shell treats specially). */
const shellWord = (s: string): string => (/^[A-Za-z0-9._:,@/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function kcat(bs: string, topic: string, groupId: string): string {
  const b = shellWord(bs);
  const t = shellWord(topic);
  return [
    '# brokers, topics, leaders and ISR as the cluster reports them',
    `kcat -b ${b} -L`,
    '',
    '# produce one record (acks=all)',
    `echo 'hello' | kcat -b ${b} -t ${t} -P -X acks=all`,
    '',
    '# consume from the beginning and exit at the end',
    `kcat -b ${b} -t ${t} -C -o beginning -e`,
    '',
    '# consume as a member of a consumer group (Ctrl-C leaves the group)',
    `kcat -b ${b} -G ${shellWord(groupId)} ${t}`,
    '',
  ].join('\n');
}

function java(bs: string, topic: string, groupId: string): string {
  return `// org.apache.kafka:kafka-clients — idempotent, acks=all producers are its default since 3.0
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.serialization.*;

public class Quickstart {
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", ${quoted(bs)});
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (Producer<String, String> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>(${quoted(topic)}, "key", "hello")).get();
    }

    Properties c = new Properties();
    c.put("bootstrap.servers", ${quoted(bs)});
    c.put("group.id", ${quoted(groupId)});
    c.put("auto.offset.reset", "earliest");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    try (Consumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(${quoted(topic)}));
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(10))) {
        System.out.printf("partition %d offset %d: %s%n", r.partition(), r.offset(), r.value());
      }
    }
  }
}
`;
}

function python(bs: string, topic: string, groupId: string): string {
  const servers = `[${bootstrapList(bs).map((s) => `'${s}'`).join(', ')}]`;
  return `# pip install kafka-python (Debian: python3-kafka)
from kafka import KafkaConsumer, KafkaProducer

producer = KafkaProducer(bootstrap_servers=${servers}, acks='all')
producer.send(${quoted(topic)}, b'hello').get(timeout=10)
producer.close()

consumer = KafkaConsumer(${quoted(topic)}, bootstrap_servers=${servers}, group_id=${quoted(groupId)},
                         auto_offset_reset='earliest', consumer_timeout_ms=10000)
for record in consumer:
    print(f'partition {record.partition} offset {record.offset}: {record.value.decode()}')
consumer.close()
`;
}

function node(bs: string, topic: string, groupId: string): string {
  const brokers = `[${bootstrapList(bs).map(quoted).join(', ')}]`;
  return `// npm install kafkajs — save as quickstart.mjs and run: node quickstart.mjs
import { Kafka } from 'kafkajs';

const kafka = new Kafka({ clientId: 'quickstart', brokers: ${brokers} });

const producer = kafka.producer({ idempotent: true });
await producer.connect();
await producer.send({ topic: ${quoted(topic)}, acks: -1, messages: [{ key: 'key', value: 'hello' }] });
await producer.disconnect();

const consumer = kafka.consumer({ groupId: ${quoted(groupId)} });
await consumer.connect();
await consumer.subscribe({ topic: ${quoted(topic)}, fromBeginning: true });
await consumer.run({
  eachMessage: async ({ partition, message }) => {
    console.log(\`partition \${partition} offset \${message.offset}: \${message.value}\`);
  },
});
process.on('SIGINT', () => consumer.disconnect().then(() => process.exit(0)));
`;
}

/** The four snippets for this cluster, or none when it serves no Kafka protocol (no bootstrap string). */
export function clientSnippets(bootstrapServers: string, topic: string, groupId = 'quickstart'): ClientSnippet[] {
  if (bootstrapList(bootstrapServers).length === 0) return [];
  return [
    { id: 'kcat', label: 'kcat', filename: 'kcat.sh', code: kcat(bootstrapServers, topic, groupId) },
    { id: 'java', label: 'Java', filename: 'Quickstart.java', code: java(bootstrapServers, topic, groupId) },
    { id: 'python', label: 'Python', filename: 'quickstart.py', code: python(bootstrapServers, topic, groupId) },
    { id: 'node', label: 'Node', filename: 'quickstart.mjs', code: node(bootstrapServers, topic, groupId) },
  ];
}
