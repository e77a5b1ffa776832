/*
 * Java reference for benchmarks/partitioners_bench.py: Kafka's own key hashing, called from
 * the kafka-clients jar the project tests against, in a warm JVM, over the same keys as ours.
 *
 * Two figures, each one pass per iteration over every key:
 *   hash       org.apache.kafka.common.utils.Utils.murmur2(key), what the target compares to;
 *   partition  BuiltInPartitioner.partitionForKey(key, PARTITIONS), the producer's placement
 *              of a keyed record (the hash, toPositive, the modulo).
 *
 * Usage: java -cp CLASSES:KAFKA_LIBS/'*' KafkaMurmur2Bench KEYS_FILE PARTITIONS WARMUP TIMED
 *
 * KEYS_FILE: int32 count, then count int32 lengths, then the keys' bytes back to back; every
 * integer little-endian. Prints one JSON object on stdout.
 */

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.function.ToLongFunction;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.common.utils.Utils;

public final class KafkaMurmur2Bench {

    private KafkaMurmur2Bench() {
    }

    static byte[][] readKeys(final String path) throws IOException {
        final ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(Paths.get(path)))
                .order(ByteOrder.LITTLE_ENDIAN);
        final int count = in.getInt();
        final int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            lengths[i] = in.getInt();
        }
        // One byte[] per key, as a producer's serializer hands each key to the partitioner.
        final byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = new byte[lengths[i]];
            in.get(keys[i]);
        }
        return keys;
    }

    // The position-weighted sums are compared with ours, and keep the JIT from dropping
    // calls whose results would otherwise be unused.
    static long hashPass(final byte[][] keys) {
        long sum = 0L;
        for (int i = 0; i < keys.length; i++) {
            sum += (long) (i + 1) * (long) Utils.murmur2(keys[i]);
        }
        return sum;
    }

    static long partitionPass(final byte[][] keys, final int partitions) {
        long sum = 0L;
        for (int i = 0; i < keys.length; i++) {
            sum += (long) (i + 1) * (long) BuiltInPartitioner.partitionForKey(keys[i], partitions);
        }
        return sum;
    }

    /**
     * Keys/s of each timed pass after the warm-up passes: by the wall clock (row 0) and by
     * this thread's CPU time (row 1, less sensitive to other work on a shared machine). The
     * checksum must not change between passes.
     */
    static double[][] time(final ToLongFunction<byte[][]> pass, final byte[][] keys,
                           final int warmup, final int timed, final long[] checksum) {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long expected = pass.applyAsLong(keys);
        for (int i = 1; i < warmup; i++) {
            if (pass.applyAsLong(keys) != expected) {
                throw new IllegalStateException("checksum changed between passes");
            }
        }
        final double[][] keysPerS = new double[2][timed];
        for (int i = 0; i < timed; i++) {
            final long cpuStart = threads.getCurrentThreadCpuTime();
            final long start = System.nanoTime();
            final long sum = pass.applyAsLong(keys);
            final long elapsedNs = System.nanoTime() - start;
            final long cpuNs = threads.getCurrentThreadCpuTime() - cpuStart;
            if (sum != expected) {
                throw new IllegalStateException("checksum changed between passes");
            }
            keysPerS[0][i] = keys.length / (elapsedNs / 1e9);
            keysPerS[1][i] = keys.length / (cpuNs / 1e9);
        }
        checksum[0] = expected;
        return keysPerS;
    }

    static String list(final double[] values) {
        final StringBuilder out = new StringBuilder();
        for (final double value : values) {
            out.append(out.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", value));
        }
        return "[" + out + "]";
    }

    /** Every timed pass's keys/s (the caller pools them with other rounds). */
    static String figures(final String name, final double[][] keysPerS, final long checksum) {
        return String.format(Locale.ROOT,
                "\"%s\": {\"keys_per_s\": %s, \"cpu_keys_per_s\": %s, \"checksum\": %d}",
                name, list(keysPerS[0]), list(keysPerS[1]), checksum);
    }

    public static void main(final String[] args) throws IOException {
        if (args.length != 4) {
            System.err.println("usage: java KafkaMurmur2Bench KEYS_FILE PARTITIONS WARMUP TIMED");
            System.exit(2);
        }
        final byte[][] keys = readKeys(args[0]);
        final int partitions = Integer.parseInt(args[1]);
        final int warmup = Math.max(1, Integer.parseInt(args[2]));
        final int timed = Math.max(1, Integer.parseInt(args[3]));

        final long[] hashSum = new long[1];
        final long[] partitionSum = new long[1];
        final double[][] hash = time(KafkaMurmur2Bench::hashPass, keys, warmup, timed, hashSum);
        final double[][] partition = time(k -> partitionPass(k, partitions), keys, warmup, timed,
                partitionSum);
        System.out.printf(Locale.ROOT,
                "{\"keys\": %d, \"partitions\": %d, \"warmup_iterations\": %d, "
                        + "\"timed_iterations\": %d, %s, %s, \"java_version\": \"%s\", "
                        + "\"kafka_version\": \"%s\"}%n",
                keys.length, partitions, warmup, timed,
                figures("hash", hash, hashSum[0]),
                figures("partition", partition, partitionSum[0]),
                System.getProperty("java.version"), AppInfoParser.getVersion());
    }
}
