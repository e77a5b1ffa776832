import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

/**
 * Share-group members that spend a fixed time on every record, and the rate they reach.
 *
 * <p>Arguments: bootstrap, topic, group, members, processing time per record in
 * microseconds, warm-up seconds, measuring window seconds, max.poll.records, and optionally
 * more consumer settings as {@code key=value,key=value}. Each member
 * is a {@link KafkaShareConsumer} on its own thread, in the default implicit
 * acknowledgement mode: a poll accepts the records of the previous one, so a record stays
 * acquired (one of the partition's in-flight records) while its member works through the
 * batch it came in. The program waits for the first record, lets the members run the
 * warm-up, then counts records over the window and prints one line of key=value pairs:
 * the group's records/s, each member's, the mean records per non-empty poll, and the
 * processing time per record the members actually took (a sleep overshoots).
 */
public final class SlowShareMembers {

    private SlowShareMembers() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        int members = Integer.parseInt(args[3]);
        long processNanos = Long.parseLong(args[4]) * 1_000L;
        long warmupMs = Long.parseLong(args[5]) * 1_000L;
        long windowMs = Long.parseLong(args[6]) * 1_000L;
        String maxPollRecords = args[7];
        // Optional: more share-consumer settings, "key=value,key=value".
        String extra = args.length > 8 ? args[8] : "";

        AtomicBoolean stop = new AtomicBoolean(false);
        AtomicLong[] records = new AtomicLong[members];
        AtomicLong[] polls = new AtomicLong[members];
        AtomicLong[] busyNanos = new AtomicLong[members];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            records[i] = new AtomicLong();
            polls[i] = new AtomicLong();
            busyNanos[i] = new AtomicLong();
            Properties props = new Properties();
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("client.id", group + "-" + (i + 1));
            props.put("max.poll.records", maxPollRecords);
            props.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
            props.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
            for (String pair : extra.split(",")) {
                if (!pair.isEmpty()) {
                    String[] kv = pair.split("=", 2);
                    props.put(kv[0], kv[1]);
                }
            }
            final int index = i;
            Thread thread = new Thread(() -> {
                try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props)) {
                    consumer.subscribe(Set.of(topic));
                    while (!stop.get()) {
                        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                        if (batch.isEmpty()) {
                            continue;
                        }
                        polls[index].incrementAndGet();
                        for (ConsumerRecord<byte[], byte[]> record : batch) {
                            long started = System.nanoTime();
                            LockSupport.parkNanos(processNanos);
                            busyNanos[index].addAndGet(System.nanoTime() - started);
                            records[index].incrementAndGet();
                            if (stop.get()) {
                                break;
                            }
                        }
                    }
                    consumer.close(Duration.ofSeconds(5));
                }
            }, "member-" + (i + 1));
            thread.start();
            threads.add(thread);
        }

        long deadline = System.currentTimeMillis() + 120_000L;
        while (total(records) == 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        if (total(records) == 0) {
            stop.set(true);
            System.out.println("error=no records within 120 s");
            System.exit(1);
        }
        Thread.sleep(warmupMs);
        long[] before = snapshot(records);
        long[] pollsBefore = snapshot(polls);
        long[] busyBefore = snapshot(busyNanos);
        long startNanos = System.nanoTime();
        Thread.sleep(windowMs);
        long[] after = snapshot(records);
        long[] pollsAfter = snapshot(polls);
        long[] busyAfter = snapshot(busyNanos);
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        stop.set(true);

        StringBuilder perMember = new StringBuilder();
        long counted = 0;
        long pollCount = 0;
        long busy = 0;
        for (int i = 0; i < members; i++) {
            long got = after[i] - before[i];
            counted += got;
            pollCount += pollsAfter[i] - pollsBefore[i];
            busy += busyAfter[i] - busyBefore[i];
            perMember.append(i == 0 ? "" : ",").append(String.format("%.1f", got / seconds));
        }
        System.out.printf(
            "members=%d window_s=%.3f records=%d records_per_s=%.1f member_records_per_s=%s "
                + "records_per_poll=%.1f process_us_measured=%.1f%n",
            members, seconds, counted, counted / seconds, perMember,
            pollCount == 0 ? 0.0 : (double) counted / pollCount,
            counted == 0 ? 0.0 : busy / 1e3 / counted);
        for (Thread thread : threads) {
            thread.join(30_000L);
        }
    }

    private static long total(AtomicLong[] values) {
        long sum = 0;
        for (AtomicLong value : values) {
            sum += value.get();
        }
        return sum;
    }

    private static long[] snapshot(AtomicLong[] values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i].get();
        }
        return out;
    }
}
