/*
 * Java reference for benchmarks/partitioners_bench.py: the Java client's MurmurHash2
 * (org.apache.kafka.common.utils.Utils.murmur2), JIT-compiled, over the same keys.
 *
 * Written from the algorithm's description (MurmurHash2 by Austin Appleby, with Kafka's
 * seed 0x9747b28c, m = 0x5bd1e995, r = 24; blocks read little-endian from a byte[]), in
 * the shape the Kafka client uses: one byte[] per key, each 4-byte block assembled from
 * single bytes, a signed int result.
 *
 * Usage: java Murmur2Bench KEYS_FILE WARMUP_ITERATIONS TIMED_ITERATIONS
 *
 * KEYS_FILE: int32 count, then count int32 lengths, then the keys' bytes back to back;
 * every integer little-endian. Prints one JSON object on stdout.
 */

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

public final class Murmur2Bench {

    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private Murmur2Bench() {
    }

    /** MurmurHash2 of the whole array, as the Java client computes it (signed result). */
    static int murmur2(final byte[] data) {
        final int length = data.length;
        int h = SEED ^ length;
        final int blocks = length >> 2;
        for (int b = 0; b < blocks; b++) {
            final int at = b << 2;
            int k = (data[at] & 0xff)
                    | ((data[at + 1] & 0xff) << 8)
                    | ((data[at + 2] & 0xff) << 16)
                    | ((data[at + 3] & 0xff) << 24);
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        final int tail = blocks << 2;
        switch (length & 3) {
            case 3:
                h ^= (data[tail + 2] & 0xff) << 16;
                // fall through: the tail bytes are folded in from the highest down
            case 2:
                h ^= (data[tail + 1] & 0xff) << 8;
                // fall through
            case 1:
                h ^= data[tail] & 0xff;
                h *= M;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }

    static byte[][] readKeys(final String path) throws IOException {
        final ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(Paths.get(path)))
                .order(ByteOrder.LITTLE_ENDIAN);
        final int count = in.getInt();
        final int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            lengths[i] = in.getInt();
        }
        final byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = new byte[lengths[i]];
            in.get(keys[i]);
        }
        return keys;
    }

    /** One pass over all keys; the position-weighted sum keeps the JIT from skipping work. */
    static long pass(final byte[][] keys) {
        long checksum = 0L;
        for (int i = 0; i < keys.length; i++) {
            checksum += (long) (i + 1) * (long) murmur2(keys[i]);
        }
        return checksum;
    }

    public static void main(final String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: java Murmur2Bench KEYS_FILE WARMUP_ITERATIONS TIMED_ITERATIONS");
            System.exit(2);
        }
        final byte[][] keys = readKeys(args[0]);
        final int warmup = Integer.parseInt(args[1]);
        final int timed = Integer.parseInt(args[2]);

        long checksum = 0L;
        for (int i = 0; i < warmup; i++) {
            checksum = pass(keys);
        }
        final double[] keysPerS = new double[timed];
        for (int i = 0; i < timed; i++) {
            final long start = System.nanoTime();
            final long sum = pass(keys);
            final long elapsedNs = System.nanoTime() - start;
            if (i > 0 && sum != checksum) {
                throw new IllegalStateException("checksum changed between passes");
            }
            checksum = sum;
            keysPerS[i] = keys.length / (elapsedNs / 1e9);
        }
        final double[] sorted = keysPerS.clone();
        Arrays.sort(sorted);
        final double best = sorted[sorted.length - 1];
        final double median = sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2.0;
        System.out.printf(
                "{\"keys\": %d, \"warmup_iterations\": %d, \"timed_iterations\": %d, "
                        + "\"best_keys_per_s\": %.1f, \"median_keys_per_s\": %.1f, \"checksum\": %d, "
                        + "\"java_version\": \"%s\"}%n",
                keys.length, warmup, timed, best, median, checksum,
                System.getProperty("java.version"));
    }
}
