import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A Kafka Streams application for the collection tests: one sub-topology reading the
 * given topics (one task per partition number), N stream threads, on the classic group
 * protocol (its group reports the `stream` assignor) or KIP-1071's (`streams`).
 *
 * <p>Arguments: bootstrap application-id group-protocol threads topic...
 * Prints "started" once running; runs until killed.
 */
public final class StreamsApp {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, args[2]);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.parseInt(args[3]));
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArray().getClass());
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArray().getClass());
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("streams").toString());
        // Offsets committed within a second: the streams-group tool finds the topics by them.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        List<String> topics = Arrays.asList(args).subList(4, args.length);
        StreamsBuilder builder = new StreamsBuilder();
        builder.<byte[], byte[]>stream(topics).foreach((key, value) -> { });
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
        streams.start();
        System.out.println("started");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
