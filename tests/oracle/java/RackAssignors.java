/*
 * The classic client assignors with racks (KIP-881), for KafkaOracle's "rack_assign" op.
 *
 *   rack_assign {"strategy": "range" | "roundrobin" | "sticky" | "cooperative-sticky",
 *                "topics": {"t": [[rack or null, ...] per replica, ...] per partition, ...},
 *                "members": [{"id": memberId, "topics": [...],
 *                             "rack": clientRack,                  (absent: no client.rack)
 *                             "owned": [[topic, partition], ...],  (absent: a new member)
 *                             "generation": int}, ...]}            (default 1 with "owned")
 *               -> {"ok": true, "assignment": {memberId: [[topic, partition], ...]},
 *                   "general": bool (sticky strategies: Kafka took its general path)}
 *
 * The cluster metadata holds one broker per (rack, k): replica k of a partition that has
 * several replicas on one rack sits on broker (rack, k), so a partition's replicas are distinct
 * brokers; a null rack is a broker without broker.rack. The first replica is the leader. Each
 * member's Subscription carries its rackId as the Java consumer sends its client.rack, and its
 * previous ownership as KafkaOracle sends it (user data for the eager "sticky",
 * ownedPartitions and generation for "cooperative-sticky").
 *
 * Written for the planner's tests; it calls Kafka's public classes and copies none of their code.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

final class RackAssignors {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "oracle-group";
    private static final int DEFAULT_GENERATION = 1;

    private RackAssignors() {
    }

    static ObjectNode assign(JsonNode request) {
        String strategy = request.get("strategy").asText();
        Cluster cluster = cluster(request.get("topics"));
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (JsonNode member : request.get("members")) {
            subscriptions.put(member.get("id").asText(), subscription(strategy, member));
        }
        ConsumerPartitionAssignor leader = KafkaOracle.leader(strategy);
        return KafkaOracle.assignmentReply(
                leader, leader.assign(cluster, new GroupSubscription(subscriptions)));
    }

    private static Cluster cluster(JsonNode topics) {
        Map<String, Node> brokers = new LinkedHashMap<>();
        List<PartitionInfo> partitions = new ArrayList<>();
        topics.fields().forEachRemaining(entry -> {
            int p = 0;
            for (JsonNode replicaRacks : entry.getValue()) {
                Map<String, Integer> seen = new HashMap<>();
                Node[] replicas = new Node[replicaRacks.size()];
                for (int r = 0; r < replicas.length; r++) {
                    String rack = replicaRacks.get(r).isNull() ? null : replicaRacks.get(r).asText();
                    int k = seen.merge(String.valueOf(rack), 1, Integer::sum);
                    String key = rack + "/" + k;
                    replicas[r] = brokers.computeIfAbsent(key,
                            x -> new Node(brokers.size(), "broker-" + brokers.size(), 9092, rack));
                }
                Node leader = replicas.length == 0 ? Node.noNode() : replicas[0];
                partitions.add(new PartitionInfo(entry.getKey(), p++, leader, replicas, replicas));
            }
        });
        return new Cluster("oracle", new ArrayList<>(brokers.values()), partitions,
                new HashSet<>(), new HashSet<>());
    }

    private static Subscription subscription(String strategy, JsonNode member) {
        String memberId = member.get("id").asText();
        List<String> topics = new ArrayList<>();
        member.get("topics").forEach(t -> topics.add(t.asText()));
        Optional<String> rack = member.hasNonNull("rack")
                ? Optional.of(member.get("rack").asText()) : Optional.empty();
        boolean wasMember = member.has("owned");
        List<TopicPartition> owned = new ArrayList<>();
        if (wasMember) {
            member.get("owned").forEach(pair ->
                    owned.add(new TopicPartition(pair.get(0).asText(), pair.get(1).asInt())));
        }
        int generation = wasMember ? member.path("generation").asInt(DEFAULT_GENERATION) : -1;
        if (strategy.equals("sticky")) {
            java.nio.ByteBuffer userData = null;
            if (wasMember) {
                StickyAssignor own = new StickyAssignor();
                own.onAssignment(new Assignment(owned),
                        new ConsumerGroupMetadata(GROUP, generation, memberId, Optional.empty()));
                userData = own.subscriptionUserData(new HashSet<>(topics));
            }
            return new Subscription(topics, userData, List.of(), generation, rack);
        }
        return new Subscription(topics, null, owned, generation, rack);
    }
}
