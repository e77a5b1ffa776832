import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.topic.KafkaTopicSpec;
import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads KafkaTopic YAML files with Strimzi's own model classes (io.strimzi:api), strictly.
 *
 * <p>Usage: {@code java StrictKafkaTopic FILE...}. Every YAML document of every file is
 * deserialised as {@link KafkaTopic} with {@code FAIL_ON_UNKNOWN_PROPERTIES}. Strimzi's
 * classes (and fabric8's {@link ObjectMeta}) keep unknown fields in an
 * {@code additionalProperties} map instead of failing (they are "unknown property
 * preserving", so an old operator can read a newer resource): a field found there is an
 * unknown field too, and fails the file, as does an apiVersion Strimzi does not serve or a
 * kind other than KafkaTopic. Prints one JSON line per resource with what it read
 * (file, apiVersion, name, namespace, labels, topicName, partitions, replicas), or
 * {@code ERROR <file>: <why>} and exits 1.
 */
public final class StrictKafkaTopic {
    public static void main(String[] args) throws Exception {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        ObjectMapper json = new ObjectMapper();
        int bad = 0;
        for (String path : args) {
            try (MappingIterator<JsonNode> documents = yaml.readerFor(JsonNode.class)
                    .readValues(new File(path))) {
                List<Map<String, Object>> read = new ArrayList<>();
                while (documents.hasNextValue()) {
                    JsonNode document = documents.nextValue();
                    if (document == null || document.isNull() || document.isMissingNode()) {
                        continue;
                    }
                    // fabric8 reports the class's own version from getApiVersion(): the
                    // document's is checked as written.
                    String api = document.path("apiVersion").asText(null);
                    checkVersion(api, document.path("kind").asText(null));
                    KafkaTopic topic = yaml.treeToValue(document, KafkaTopic.class);
                    check(topic);
                    Map<String, Object> described = describe(path, topic);
                    described.put("apiVersion", api);
                    read.add(described);
                }
                for (Map<String, Object> described : read) {
                    System.out.println(json.writeValueAsString(described));
                }
            } catch (Exception e) {
                bad++;
                System.out.println("ERROR " + path + ": " + e.getMessage().replace('\n', ' '));
            }
        }
        System.exit(bad == 0 ? 0 : 1);
    }

    private static void checkVersion(String api, String kind) {
        String group = KafkaTopic.RESOURCE_GROUP + "/";
        if (api == null || !api.startsWith(group)
                || !KafkaTopic.VERSIONS.contains(api.substring(group.length()))) {
            throw new IllegalArgumentException("apiVersion " + api + " is not one Strimzi serves: "
                    + KafkaTopic.VERSIONS);
        }
        if (!KafkaTopic.RESOURCE_KIND.equals(kind)) {
            throw new IllegalArgumentException("kind " + kind + ", not KafkaTopic");
        }
    }

    private static void check(KafkaTopic topic) {
        unknown("the resource", topic.getAdditionalProperties());
        ObjectMeta meta = topic.getMetadata();
        if (meta == null || meta.getName() == null) {
            throw new IllegalArgumentException("no metadata.name");
        }
        unknown("metadata", meta.getAdditionalProperties());
        KafkaTopicSpec spec = topic.getSpec();
        if (spec == null) {
            throw new IllegalArgumentException("no spec");
        }
        unknown("spec", spec.getAdditionalProperties());
        if (topic.getStatus() != null) {
            throw new IllegalArgumentException("a status: the operator writes it, not the user");
        }
    }

    private static void unknown(String where, Map<String, Object> extra) {
        if (extra != null && !extra.isEmpty()) {
            throw new IllegalArgumentException("unknown field(s) in " + where + ": " + extra.keySet());
        }
    }

    private static Map<String, Object> describe(String path, KafkaTopic topic) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file", path);
        out.put("name", topic.getMetadata().getName());
        out.put("namespace", topic.getMetadata().getNamespace());
        out.put("labels", topic.getMetadata().getLabels());
        out.put("topicName", topic.getSpec().getTopicName());
        out.put("partitions", topic.getSpec().getPartitions());
        out.put("replicas", topic.getSpec().getReplicas());
        return out;
    }
}
