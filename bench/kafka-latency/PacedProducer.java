/*
 * The paced producer of paced-producer.ts on Kafka's own Java client (run as a single-file source
 * program with the stack's kafka-clients jar): the same records, pacing and JSON lines, at a
 * fraction of kafkajs's CPU per record, so on a shared 2-core machine the offered load does not
 * take the CPU the service under test needs. A send that finds the client's buffer full blocks,
 * so a producer that cannot keep up shows as a lower achieved rate.
 *
 *   java -cp kafka-clients.jar:slf4j-api.jar PacedProducer.java BROKERS TOPIC PARTITIONS RATE SECONDS FIRST_ID
 */
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public class PacedProducer {
  private static final long SLICE_MS = 25;

  public static void main(String[] args) throws Exception {
    String brokers = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    double rate = Double.parseDouble(args[3]);
    double seconds = Double.parseDouble(args[4]);
    long firstId = Long.parseLong(args[5]);
    Properties props = new Properties();
    props.put("bootstrap.servers", brokers);
    props.put("acks", "all");
    props.put("linger.ms", "5");
    props.put("batch.size", String.valueOf(256 * 1024));
    props.put("key.serializer", StringSerializer.class.getName());
    props.put("value.serializer", StringSerializer.class.getName());
    String note = "x".repeat(110);
    AtomicReference<Exception> failure = new AtomicReference<>();
    long total = Math.round(rate * seconds);
    long sent = 0;
    long nextReportMs = 10_000;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      long started = System.nanoTime();
      while (failure.get() == null && sent < total) {
        double elapsedMs = (System.nanoTime() - started) / 1e6;
        if (elapsedMs >= seconds * 1000) break;
        if (elapsedMs >= nextReportMs) {
          report(sent, elapsedMs / 1000, false);
          nextReportMs += 10_000;
        }
        long due = Math.min(total, (long) Math.floor(elapsedMs / 1000 * rate));
        long now = System.currentTimeMillis();
        for (long n = sent; n < due; n++) {
          long id = firstId + n;
          String value = "{\"id\":" + id + ",\"produced_ms\":" + now + ",\"name\":\"customer-" + id + "\",\"amount\":" + (id * 1.25) + ",\"city\":\"Lisbon\",\"note\":\"" + note + "\"}";
          producer.send(new ProducerRecord<>(topic, (int) (n % partitions), "k-" + id, value), (metadata, error) -> {
            if (error != null) failure.compareAndSet(null, error);
          });
        }
        sent = Math.max(sent, due);
        long sleepMs = SLICE_MS - (long) ((System.nanoTime() - started) / 1e6) % SLICE_MS;
        Thread.sleep(Math.max(1, sleepMs));
      }
      producer.flush();
      if (failure.get() != null) {
        System.err.println("paced producer failed: " + failure.get().getMessage());
        System.exit(1);
      }
      report(sent, (System.nanoTime() - started) / 1e9, true);
    }
  }

  private static void report(long sent, double seconds, boolean done) {
    System.out.println("{\"sent\":" + sent + ",\"seconds\":" + seconds + (done ? ",\"done\":true" : "") + "}");
    System.out.flush();
  }
}
