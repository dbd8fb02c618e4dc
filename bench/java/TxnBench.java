import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * bench/txn.ts's produce figure with Apache Kafka's Java client: a transactional producer
 * (beginTransaction, RECORDS sends to one partition, commitTransaction) against an idempotent one
 * (RECORDS sends, flush), acks=all, each in turn for windowMs, rounds times, which goes first
 * alternating. batch.size holds the RECORDS records and linger.ms is long, so each transaction and
 * each flush is one Produce request, as kafkajs sends them. Prints one line:
 * RESULT idemRecords idemMs txnRecords txnMs.
 *
 * Usage: TxnBench bootstrap idempotentTopic transactionalTopic windowMs rounds records valueBytes
 */
public final class TxnBench {
  private static Properties base(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "60000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  interface Unit {
    void run() throws Exception;
  }

  /** Runs `unit` for `ms`; {records, elapsed ms}. */
  private static double[] window(long ms, int records, Unit unit) throws Exception {
    long start = System.nanoTime();
    long n = 0;
    while ((System.nanoTime() - start) / 1_000_000 < ms) {
      unit.run();
      n += records;
    }
    return new double[] {n, (System.nanoTime() - start) / 1e6};
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String idemTopic = args[1];
    String txnTopic = args[2];
    long windowMs = Long.parseLong(args[3]);
    int rounds = Integer.parseInt(args[4]);
    int records = Integer.parseInt(args[5]);
    int valueBytes = Integer.parseInt(args[6]);
    byte[][] values = new byte[records][];
    for (int i = 0; i < records; i++) {
      String head = "{\"order\":" + i + ",\"customer\":\"c-" + ((i * 7919) % 10_007) + "\",\"items\":[";
      StringBuilder b = new StringBuilder(head);
      while (b.length() < valueBytes - 2) b.append('x');
      b.append("]}");
      values[i] = b.substring(0, valueBytes).getBytes("UTF-8");
    }
    Properties tp = base(bootstrap);
    tp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-tx-java");
    try (Producer<byte[], byte[]> idem = new KafkaProducer<>(base(bootstrap)); Producer<byte[], byte[]> txn = new KafkaProducer<>(tp)) {
      txn.initTransactions();
      Unit sendIdem = () -> {
        for (byte[] v : values) idem.send(new ProducerRecord<>(idemTopic, 0, null, v));
        idem.flush();
      };
      Unit sendTxn = () -> {
        txn.beginTransaction();
        for (byte[] v : values) txn.send(new ProducerRecord<>(txnTopic, 0, null, v));
        txn.commitTransaction();
      };
      // Warm both paths (the JIT, the coordinator) before measuring.
      window(2_000, records, sendIdem);
      window(2_000, records, sendTxn);
      double[] idemSum = {0, 0};
      double[] txnSum = {0, 0};
      for (int round = 0; round < rounds; round++) {
        boolean idemFirst = round % 2 == 0;
        for (int k = 0; k < 2; k++) {
          boolean isIdem = (k == 0) == idemFirst;
          double[] w = window(windowMs, records, isIdem ? sendIdem : sendTxn);
          double[] sum = isIdem ? idemSum : txnSum;
          sum[0] += w[0];
          sum[1] += w[1];
        }
      }
      System.out.printf("RESULT %.0f %.3f %.0f %.3f%n", idemSum[0], idemSum[1], txnSum[0], txnSum[1]);
    }
  }
}
