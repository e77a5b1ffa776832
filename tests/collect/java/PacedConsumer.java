import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer group whose members take a set time per record: a known capacity for the
 * tests that learn a group's capacity from how it consumes (issue 35).
 *
 * <pre>
 * BOOTSTRAP GROUP PROTOCOL MEMBERS MICROS_PER_RECORD COMMIT_INTERVAL_MS TOPIC[,TOPIC...]
 *     MEMBERS KafkaConsumers of GROUP, one thread each, PROTOCOL "classic" or "consumer"
 *     (KIP-848), client ids GROUP-0, GROUP-1..., auto-committing every
 *     COMMIT_INTERVAL_MS. Each record costs MICROS_PER_RECORD of wall time: a member
 *     processes at most 1e6 / MICROS_PER_RECORD records/s whatever the machine's load,
 *     as an application that waits on a database would. Prints "ready" once every member
 *     owns partitions, and leaves the group when its standard input closes.
 * </pre>
 *
 * <p>The time is paced against a deadline rather than slept per record: a member that
 * falls behind its schedule (a slow poll, a loaded machine) catches up within its
 * rate instead of losing the sleep's overshoot on every record, so a saturated member's
 * rate is the set one, not a few percent under it. After an idle wait the schedule
 * restarts from now, so idle time is never spent as credit.
 */
public final class PacedConsumer {
    private PacedConsumer() {}

    public static void main(String[] args) throws InterruptedException, IOException {
        if (args.length != 7) {
            System.err.println(
                    "usage: BOOTSTRAP GROUP PROTOCOL MEMBERS MICROS_PER_RECORD COMMIT_INTERVAL_MS TOPICS");
            System.exit(2);
        }
        String bootstrap = args[0];
        String group = args[1];
        String protocol = args[2];
        int count = Integer.parseInt(args[3]);
        long nanosPerRecord = Long.parseLong(args[4]) * 1_000L;
        String commitInterval = args[5];
        List<String> topics = Arrays.asList(args[6].split(","));

        AtomicBoolean stop = new AtomicBoolean(false);
        CountDownLatch owning = new CountDownLatch(count);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Properties props = new Properties();
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("group.protocol", protocol);
            props.put("client.id", group + "-" + i);
            if (protocol.equals("classic")) {
                props.put("session.timeout.ms", "10000");
                props.put("heartbeat.interval.ms", "1000");
            }
            props.put("auto.offset.reset", "latest");
            props.put("enable.auto.commit", "true");
            props.put("auto.commit.interval.ms", commitInterval);
            // A poll's records take max.poll.records x the per-record time: keep it
            // well under max.poll.interval.ms at any pace the tests set.
            props.put("max.poll.records", "100");
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            Thread thread = new Thread(() -> consume(props, topics, nanosPerRecord, stop, owning));
            thread.start();
            threads.add(thread);
        }
        owning.await();
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() != -1) {
            // The test closes our standard input when the members should leave.
        }
        stop.set(true);
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void consume(
            Properties props,
            List<String> topics,
            long nanosPerRecord,
            AtomicBoolean stop,
            CountDownLatch owning) {
        boolean counted = false;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(topics);
            long due = System.nanoTime();
            while (!stop.get()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                if (!counted && !consumer.assignment().isEmpty()) {
                    counted = true;
                    owning.countDown();
                }
                due = Math.max(due, System.nanoTime());
                for (ConsumerRecord<byte[], byte[]> ignored : records) {
                    due += nanosPerRecord;
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
            }
        }
    }
}
