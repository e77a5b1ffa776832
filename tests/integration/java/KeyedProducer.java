import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One Java KafkaProducer, left at Kafka's default partitioning, sends records and says
 * where each one landed.
 *
 * <p>Argument: {@code BOOTSTRAP}. Reads one JSON document from stdin:
 * {@code {"records": [{"topic": "t", "key": ..., "value_bytes": 100}, ...]}} where a key is
 * {@code {"bytes": "<base64>"}} (sent through {@link ByteArraySerializer}),
 * {@code {"text": "..."}} (sent through {@link StringSerializer}, UTF-8) or absent/null (a
 * keyless record). Sends them in order from one thread, flushes, and prints
 * {@code {"partitions": [...]}}: the partition each send's {@code RecordMetadata} reported,
 * in input order. No partitioner is configured: the producer's built-in one decides.
 */
public final class KeyedProducer {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** ByteArraySerializer for byte[] keys, StringSerializer for String keys. */
    public static final class EitherSerializer implements Serializer<Object> {
        private final ByteArraySerializer bytes = new ByteArraySerializer();
        private final StringSerializer text = new StringSerializer();

        @Override
        public byte[] serialize(String topic, Object data) {
            if (data == null) return null;
            if (data instanceof String) return text.serialize(topic, (String) data);
            return bytes.serialize(topic, (byte[]) data);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KeyedProducer BOOTSTRAP < records.json");
            System.exit(2);
        }
        JsonNode input;
        try (InputStream in = System.in) {
            input = JSON.readTree(in);
        }
        Map<Integer, byte[]> values = new HashMap<>();
        JsonNode records = input.get("records");
        int[] landed = new int[records.size()];
        AtomicReference<Exception> failure = new AtomicReference<>();

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "keyed-producer");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, EitherSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<Object, byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < records.size(); i++) {
                JsonNode record = records.get(i);
                JsonNode key = record.get("key");
                Object keyObject = null;
                if (key != null && !key.isNull()) {
                    keyObject = key.has("text")
                        ? key.get("text").asText()
                        : Base64.getDecoder().decode(key.get("bytes").asText());
                }
                byte[] value = values.computeIfAbsent(record.get("value_bytes").asInt(), byte[]::new);
                final int index = i;
                producer.send(new ProducerRecord<>(record.get("topic").asText(), keyObject, value),
                    (metadata, error) -> {
                        if (error != null) failure.compareAndSet(null, error);
                        else landed[index] = metadata.partition();
                    });
            }
            producer.flush();
        }
        if (failure.get() != null) throw failure.get();
        ObjectNode out = JSON.createObjectNode();
        ArrayNode partitions = out.putArray("partitions");
        for (int p : landed) partitions.add(p);
        PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        stdout.println(JSON.writeValueAsString(out));
    }
}
